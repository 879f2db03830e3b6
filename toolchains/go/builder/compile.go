package main

import (
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strings"
)

// compileFlags are the flags of `builder compile` and `builder testmain`.
type compileFlags struct {
	sdkFlags
	importpath, out, linkobj, stdlib, mode, lib string
	arcs, srcs, cflags, gcflags                 multiFlag
}

func parseCompileFlags(name string, args []string) (*compileFlags, error) {
	f := &compileFlags{}
	fs := f.sdkFlags.flagSet(name)
	fs.StringVar(&f.importpath, "importpath", "", "import path of the package")
	fs.StringVar(&f.out, "o", "", "output: export data for the compilers of dependent packages")
	fs.StringVar(&f.linkobj, "linkobj", "", "output: the archive for the linker")
	fs.StringVar(&f.stdlib, "stdlib", "", "directory of the standard library archives")
	fs.StringVar(&f.mode, "mode", "lib", "which files: lib, test (library + internal tests), xtest (external tests)")
	fs.StringVar(&f.lib, "lib", "", "mode test: EXPORT,ARCHIVE of the library of the same import path, used when the target has no files of that package (external tests only)")
	fs.Var(&f.arcs, "arc", "importpath=file of a dependency (repeated)")
	fs.Var(&f.srcs, "src", "a source file (repeated)")
	fs.Var(&f.cflags, "cflag", "a C compiler flag for the cgo part, from cdeps (repeated)")
	fs.Var(&f.gcflags, "gcflag", "an extra flag for go tool compile (repeated)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if f.importpath == "" || f.out == "" || f.linkobj == "" {
		return nil, fmt.Errorf("%s: -importpath, -o and -linkobj are required", name)
	}
	return f, nil
}

// openPackage parses the flags of `tool`, opens the Go SDK and loads the
// package of the sources; the caller closes the SDK.
func openPackage(tool string, args []string) (*compileFlags, *sdk, *build.Package, string, error) {
	f, err := parseCompileFlags(tool, args)
	if err != nil {
		return nil, nil, nil, "", err
	}
	s, err := newSDK(f.goroot)
	if err != nil {
		return nil, nil, nil, "", err
	}
	pkg, dir, err := loadPackage(s, f.srcs, f.instrumentation())
	if err != nil {
		s.close()
		return nil, nil, nil, "", fmt.Errorf("%s: %v", f.importpath, err)
	}
	return f, s, pkg, dir, nil
}

func runCompile(args []string) error {
	f, s, pkg, dir, err := openPackage("compile", args)
	if err != nil {
		return err
	}
	defer s.close()
	if len(pkg.EmbedPatterns) > 0 {
		return fmt.Errorf("%s: //go:embed is not supported by cubridge's Go rules", f.importpath)
	}
	if len(pkg.SFiles)+len(pkg.SysoFiles)+len(pkg.CXXFiles)+len(pkg.MFiles)+len(pkg.FFiles) > 0 {
		return fmt.Errorf("%s: assembly, .syso, C++ and other non-C files are not supported in Go srcs; put them in a cc_library in cdeps", f.importpath)
	}
	var goFiles, cgoFiles, cFiles []string
	path := func(names []string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	name := pkg.Name
	switch f.mode {
	case "lib":
		goFiles, cgoFiles, cFiles = path(pkg.GoFiles), path(pkg.CgoFiles), path(pkg.CFiles)
	case "test":
		goFiles = append(path(pkg.GoFiles), path(pkg.TestGoFiles)...)
		cgoFiles, cFiles = path(pkg.CgoFiles), path(pkg.CFiles)
	case "xtest":
		goFiles, name = path(pkg.XTestGoFiles), pkg.Name+"_test"
	default:
		return fmt.Errorf("unknown -mode %q", f.mode)
	}
	if f.mode == "xtest" && len(goFiles) == 0 { // no external tests: an empty package
		stub := filepath.Join(s.tmp, "empty_test.go")
		if err := os.WriteFile(stub, []byte("package "+name+"\n"), 0o644); err != nil {
			return err
		}
		goFiles = []string{stub}
	}
	if f.mode == "test" && len(goFiles)+len(cgoFiles) == 0 && f.lib != "" {
		// Only external tests: the package under test is the library itself.
		x, a, _ := strings.Cut(f.lib, ",")
		if err := copyFile(abs(s.root, x), abs(s.root, f.out)); err != nil {
			return err
		}
		return copyFile(abs(s.root, a), abs(s.root, f.linkobj))
	}
	if len(goFiles)+len(cgoFiles) == 0 {
		return fmt.Errorf("%s: no Go files to compile among %v (mode %s; build constraints may exclude them)", f.importpath, f.srcs, f.mode)
	}
	var objs []string
	if len(cgoFiles) > 0 || len(cFiles) > 0 {
		gen, o, err := cgo(s, f, pkg, dir, cgoFiles, cFiles)
		if err != nil {
			return fmt.Errorf("%s: %v", f.importpath, err)
		}
		goFiles, objs = append(goFiles, gen...), o
	}
	if f.mode == "test" {
		// As go test -fuzz: coverage counters in the package under test guide the fuzzer.
		f.gcflags = append(f.gcflags, "-d=libfuzzer")
	}
	p := f.importpath
	if name == "main" && f.mode == "lib" {
		p = "main"
	}
	return compileGo(s, f, p, goFiles, objs)
}

// compileGo runs go tool compile, export data to -o and the linker's archive
// to -linkobj, then appends the cgo objects to that archive.
func compileGo(s *sdk, f *compileFlags, p string, goFiles, objs []string) error {
	cfg, err := s.importcfg(f.stdlib, f.arcs)
	if err != nil {
		return err
	}
	args := []string{"-o", abs(s.root, f.out), "-linkobj", abs(s.root, f.linkobj), "-p", p,
		"-importcfg", cfg, "-pack", "-trimpath", s.trimpath(), "-buildid", "", "-c", "1"}
	if len(objs) == 0 {
		args = append(args, "-complete")
	}
	args = append(args, f.instrumentFlags()...)
	args = append(args, f.gcflags...)
	args = append(args, "--")
	for _, g := range goFiles {
		args = append(args, abs(s.root, g))
	}
	if err := s.run(s.root, s.env(), s.tool("compile"), args...); err != nil {
		return err
	}
	return appendObjects(abs(s.root, f.linkobj), objs)
}

// quoteFlags joins flags for CGO_LDFLAGS and -extldflags (split by the tools
// as a shell would, quotes respected).
func quoteFlags(flags []string) string {
	var q []string
	for _, fl := range flags {
		if strings.ContainsAny(fl, " \t'\"") {
			fl = "'" + strings.ReplaceAll(fl, "'", `'\''`) + "'"
		}
		q = append(q, fl)
	}
	return strings.Join(q, " ")
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}
