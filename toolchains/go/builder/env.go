package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// sdk is the Go SDK the action runs: GOROOT relative to the execution root.
type sdk struct {
	goroot string // absolute
	root   string // the execution root (the action's working directory)
	tmp    string // private scratch directory
}

// sdkFlags are the flags of every command that runs the SDK: where it is,
// and whether the code is instrumented (race detector, address sanitizer).
type sdkFlags struct {
	goroot     string
	race, asan bool
}

// flagSet is the flag set of the builder command name, with the SDK's flags
// registered into f; the command adds its own.
func (f *sdkFlags) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&f.goroot, "goroot", "", "GOROOT, relative to the execution root")
	fs.BoolVar(&f.race, "race", false, "race detector")
	fs.BoolVar(&f.asan, "asan", false, "address sanitizer")
	return fs
}

// instrumentation is "race" and "asan" as set: the build tags, and with a
// dash the flags of go tool compile, go tool link and go list.
func (f *sdkFlags) instrumentation() []string {
	var names []string
	if f.race {
		names = append(names, "race")
	}
	if f.asan {
		names = append(names, "asan")
	}
	return names
}

// instrumentFlags is instrumentation as flags: -race, -asan.
func (f *sdkFlags) instrumentFlags() []string {
	var flags []string
	for _, n := range f.instrumentation() {
		flags = append(flags, "-"+n)
	}
	return flags
}

func newSDK(goroot string) (*sdk, error) {
	if goroot == "" {
		return nil, fmt.Errorf("-goroot is required")
	}
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "gobuild")
	if err != nil {
		return nil, err
	}
	return &sdk{goroot: abs(root, goroot), root: root, tmp: tmp}, nil
}

func (s *sdk) close() {
	filepath.Walk(s.tmp, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(s.tmp)
}

func abs(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

// tool is the path of a tool of the SDK (compile, cgo, link, pack is built in).
func (s *sdk) tool(name string) string {
	return filepath.Join(s.goroot, "pkg", "tool", runtime.GOOS+"_"+runtime.GOARCH, name)
}

// env is the environment of every tool: nothing from the caller but PATH and CC.
func (s *sdk) env(extra ...string) []string {
	env := []string{
		"GOROOT=" + s.goroot,
		"GOROOT_FINAL=",
		"GOPATH=" + filepath.Join(s.tmp, "gopath"),
		"GOCACHE=" + filepath.Join(s.tmp, "gocache"),
		"HOME=" + s.tmp,
		"TMPDIR=" + s.tmp,
		"GOFLAGS=",
		"GOTOOLCHAIN=local",
		"GOTELEMETRY=off",
		"GO111MODULE=off",
		"GOEXPERIMENT=" + os.Getenv("GOEXPERIMENT"),
		"CGO_ENABLED=1",
		"PATH=" + os.Getenv("PATH"),
	}
	if cc := os.Getenv("CC"); cc != "" {
		env = append(env, "CC="+abs(s.root, cc))
	}
	return append(env, extra...)
}

// run runs a command in dir; its output goes to stderr only on failure.
func (s *sdk) run(dir string, env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out.String())
	}
	if out.Len() > 0 {
		os.Stderr.Write(out.Bytes())
	}
	return nil
}

// trimpath is the -trimpath argument of compile and cgo: the execution root
// and the scratch directory leave every recorded path.
func (s *sdk) trimpath() string {
	return s.tmp + "=>;" + s.root + "=>"
}

// multiFlag is a repeated flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// importcfg writes a compile/link importcfg: the standard library archives of
// stdlibDir and the `importpath=file` pairs given.
func (s *sdk) importcfg(stdlibDir string, pairs []string) (string, error) {
	var b strings.Builder
	seen := map[string]string{}
	for _, p := range pairs {
		ip, file, ok := strings.Cut(p, "=")
		if !ok {
			return "", fmt.Errorf("bad -arc %q (want importpath=file)", p)
		}
		if prev, dup := seen[ip]; dup && prev != file {
			return "", fmt.Errorf("two archives for import path %q: %s and %s", ip, prev, file)
		}
		seen[ip] = file
	}
	if stdlibDir != "" {
		dir := abs(s.root, stdlibDir)
		err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(p, ".a") {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			ip := strings.TrimSuffix(filepath.ToSlash(rel), ".a")
			if _, ok := seen[ip]; !ok {
				seen[ip] = p
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("reading the standard library %s: %v", stdlibDir, err)
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "packagefile %s=%s\n", k, abs(s.root, seen[k]))
	}
	f := filepath.Join(s.tmp, fmt.Sprintf("importcfg%d", len(pairs)))
	return f, os.WriteFile(f, []byte(b.String()), 0o644)
}
