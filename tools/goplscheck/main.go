// Command goplscheck loads cubridge's Go packages the way gopls does
// (golang.org/x/tools/go/packages, types and syntax included) in the two setups
// Go users have, and fails on any error:
//
//   - plain: the go command alone (no GOPACKAGESDRIVER, no CGO_CFLAGS); the cgo
//     header is found through the include link go/cubridge/cubridge ->
//     cuda/include/cubridge, modules through the machine's module proxy;
//   - bazel: rules_go's gopackagesdriver through tools/gopackagesdriver.sh,
//     which builds the packages with Bazel. rules_go 0.50.1's driver hands cgo
//     packages' sources over unprocessed (its aspect reports archive.source.srcs),
//     so type-checking go/cubridge through it fails on `import "C"` in any
//     rules_go repository; this setup checks what the driver answers: the
//     packages, their files and their imports, without errors.
//
// Run from the repository root: go run ./tools/goplscheck [-setup plain|bazel|both]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The packages a Go user opens.
var patterns = []string{"./go/cubridge/...", "./go/cmd/..."}

// What each setup loads: gopls' full load, or (the driver) the package graph.
const (
	listed = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports | packages.NeedDeps
	typed  = listed | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo
)

// load loads the patterns in one setup and returns its problems.
func load(repo string, env []string, mode packages.LoadMode) ([]string, error) {
	cfg := &packages.Config{Mode: mode, Dir: repo, Env: env, Tests: true}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var problems []string
	found := false
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			problems = append(problems, fmt.Sprintf("%s: %v", p.PkgPath, e))
		}
		if p.PkgPath != "github.com/cubridge/cubridge/go/cubridge" {
			return
		}
		found = true
		if len(p.CompiledGoFiles) == 0 || p.Imports["unsafe"] == nil {
			problems = append(problems, fmt.Sprintf("%s: %d compiled files, imports %d packages", p.PkgPath, len(p.CompiledGoFiles), len(p.Imports)))
		}
		if mode&packages.NeedTypes != 0 && (p.Types == nil || p.Types.Scope().Lookup("Add") == nil) {
			problems = append(problems, p.PkgPath+" loaded without its API (cubridge.Add)")
		}
	})
	if !found {
		problems = append(problems, "github.com/cubridge/cubridge/go/cubridge was not loaded")
	}
	return problems, nil
}

// environ is this process's environment with the given variables replaced.
func environ(set map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

func main() {
	setup := flag.String("setup", "both", "plain, bazel or both")
	flag.Parse()
	repo, err := os.Getwd()
	if err != nil {
		fail(err)
	}
	setups := map[string]struct {
		env  []string
		mode packages.LoadMode
	}{
		"plain": {environ(map[string]string{"GOPACKAGESDRIVER": "off", "CGO_ENABLED": "1", "CGO_CFLAGS": "-O2 -g", "GOFLAGS": "-mod=mod"}), typed},
		"bazel": {environ(map[string]string{"GOPACKAGESDRIVER": filepath.Join(repo, "tools/gopackagesdriver.sh")}), listed},
	}
	failed := false
	for _, name := range []string{"plain", "bazel"} {
		if *setup != "both" && *setup != name {
			continue
		}
		problems, err := load(repo, setups[name].env, setups[name].mode)
		if err != nil {
			fmt.Fprintf(os.Stderr, "goplscheck %s: %v\n", name, err)
			failed = true
			continue
		}
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "goplscheck %s: %s\n", name, p)
		}
		failed = failed || len(problems) > 0
		if len(problems) == 0 {
			what := map[string]string{"plain": "with types", "bazel": "files and imports"}[name]
			fmt.Printf("goplscheck %s: %s load without errors, %s\n", name, strings.Join(patterns, " "), what)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goplscheck:", err)
	os.Exit(1)
}
