package main

import (
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strings"
)

// cgo runs go tool cgo over the cgo files, then the C compiler over its output
// and over the package's own .c files. It returns the generated Go files and
// the C objects. The C/C++ libraries of cdeps are not linked here: the link
// action links each of them once.
func cgo(s *sdk, f *compileFlags, pkg *build.Package, dir string, cgoFiles, cFiles []string) ([]string, []string, error) {
	cc := os.Getenv("CC")
	if cc == "" {
		return nil, nil, fmt.Errorf("cgo needs a C compiler (CC is empty)")
	}
	objdir := filepath.Join(s.tmp, "cgo")
	if err := os.MkdirAll(objdir, 0o755); err != nil {
		return nil, nil, err
	}
	srcdir := abs(s.root, dir)
	expand := func(flags []string) []string {
		var out []string
		for _, fl := range flags {
			out = append(out, strings.ReplaceAll(fl, "${SRCDIR}", srcdir))
		}
		return out
	}
	cflags := append([]string{}, f.cflags...)
	for i, fl := range cflags { // -I/-isystem of cdeps are relative to the execution root
		for _, pre := range []string{"-I", "-isystem", "-iquote"} {
			if rest, ok := strings.CutPrefix(fl, pre); ok && rest != "" && !filepath.IsAbs(rest) {
				cflags[i] = pre + abs(s.root, rest)
			}
		}
	}
	cflags = append(cflags, expand(pkg.CgoCPPFLAGS)...)
	cflags = append(cflags, expand(pkg.CgoCFLAGS)...)
	ldflags := expand(pkg.CgoLDFLAGS)
	if f.asan {
		cflags = append(cflags, "-fsanitize=address")
		ldflags = append(ldflags, "-fsanitize=address")
	}
	var gen []string
	if len(cgoFiles) > 0 {
		args := []string{"-objdir", objdir, "-importpath", f.importpath, "-trimpath", s.trimpath(), "--"}
		args = append(args, cflags...)
		for _, c := range cgoFiles {
			args = append(args, abs(s.root, c))
		}
		env := s.env("CGO_LDFLAGS=" + quoteFlags(ldflags))
		if err := s.run(s.root, env, s.tool("cgo"), args...); err != nil {
			return nil, nil, err
		}
		gen = append(gen, filepath.Join(objdir, "_cgo_gotypes.go"))
		for _, c := range cgoFiles {
			base := strings.TrimSuffix(filepath.Base(c), ".go")
			gen = append(gen, filepath.Join(objdir, base+".cgo1.go"))
			cFiles = append(cFiles, filepath.Join(objdir, base+".cgo2.c"))
		}
		cFiles = append(cFiles, filepath.Join(objdir, "_cgo_export.c"))
	}
	common := []string{"-I", objdir, "-I", srcdir, "-fPIC", "-m64", "-pthread", "-fmessage-length=0",
		"-ffile-prefix-map=" + s.tmp + "=/_cgo", "-ffile-prefix-map=" + s.root + "=.",
		"-gno-record-gcc-switches", "-g", "-O2"}
	var objs []string
	for i, c := range cFiles {
		obj := filepath.Join(objdir, fmt.Sprintf("_x%03d.o", i))
		args := append(append(append([]string{}, common...), cflags...), "-c", abs(s.root, c), "-o", obj)
		if err := s.run(s.root, s.env(), abs(s.root, cc), args...); err != nil {
			return nil, nil, err
		}
		objs = append(objs, obj)
	}
	return gen, objs, nil
}
