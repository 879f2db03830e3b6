// Command cubind generates the bindings of kernels declared for cubridge
// (docs/bind.md): from .bind declarations, the C header and descriptors, a
// CPython extension's source and .pyi stub, a Go package, a C++ test and a
// Markdown page. The Bazel macro kernel_binding
// (@cubridge//toolchains/bind:defs.bzl) runs it; an error in a declaration
// is "file:line: message" and exit status 1.
//
//	cubind -headers a.bind.h,b.bind.h -c out.c -py ext.c -pyi m.pyi -go pkg.go \
//	    -cctest test.cc -doc out.md -py_module pkg._ext -go_package pkg \
//	    -go_importpath example.com/pkg a.bind b.bind
package main

import (
	"flag"
	"fmt"
	"go/format"
	"os"
	"regexp"
	"strings"
)

type options struct {
	headers                                  []string
	cOut, pyOut, pyiOut, goOut, testOut, doc string
	pyModule, goPackage, goImportpath        string
}

var (
	pyModuleRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	goPackageRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
)

func main() {
	var o options
	var headers string
	flag.StringVar(&headers, "headers", "", "the header of each declaration, comma-separated, in order")
	flag.StringVar(&o.cOut, "c", "", "the descriptors' C source")
	flag.StringVar(&o.pyOut, "py", "", "the Python extension's C source")
	flag.StringVar(&o.pyiOut, "pyi", "", "the extension's .pyi stub")
	flag.StringVar(&o.goOut, "go", "", "the Go package's source")
	flag.StringVar(&o.testOut, "cctest", "", "the C++ test")
	flag.StringVar(&o.doc, "doc", "", "the Markdown page")
	flag.StringVar(&o.pyModule, "py_module", "", "the extension's dotted module name")
	flag.StringVar(&o.goPackage, "go_package", "", "the Go package name")
	flag.StringVar(&o.goImportpath, "go_importpath", "", "the Go package's import path (for the docs)")
	flag.Parse()
	if headers != "" {
		o.headers = strings.Split(headers, ",")
	}
	if err := run(o, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(o options, files []string) error {
	if len(files) == 0 {
		return fmt.Errorf("cubind: no declaration files given")
	}
	if len(o.headers) != len(files) {
		return fmt.Errorf("cubind: %d headers for %d declarations", len(o.headers), len(files))
	}
	if !pyModuleRE.MatchString(o.pyModule) {
		return fmt.Errorf("cubind: -py_module %q is not a dotted Python module name", o.pyModule)
	}
	if !goPackageRE.MatchString(o.goPackage) {
		return fmt.Errorf("cubind: -go_package %q is not a Go package name", o.goPackage)
	}
	decls, err := load(files)
	if err != nil {
		return err
	}
	outs := []struct {
		path string
		text func() string
	}{
		{o.cOut, func() string { return genSource(decls, o.headers) }},
		{o.pyOut, func() string { return genPython(decls, o.headers, o.pyModule) }},
		{o.pyiOut, func() string { return genStub(decls, o.pyModule) }},
		{o.goOut, func() string { return gofmt(genGo(decls, o.goPackage)) }},
		{o.testOut, func() string { return genCCTest(decls, o.headers) }},
		{o.doc, func() string { return genDoc(decls, o.pyModule, o.goImportpath, o.goPackage) }},
	}
	for i, d := range decls {
		outs = append(outs, struct {
			path string
			text func() string
		}{o.headers[i], func() string { return genHeader(d, o.headers[i]) }})
	}
	for _, out := range outs {
		if out.path == "" {
			continue
		}
		if err := os.WriteFile(out.path, []byte(out.text()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gofmt formats generated Go source (it is valid by construction).
func gofmt(src string) string {
	out, err := format.Source([]byte(src))
	if err != nil {
		panic(fmt.Sprintf("cubind: generated Go does not parse: %v\n%s", err, src))
	}
	return string(out)
}

// load parses every declaration and checks what spans them: kernel names
// are C symbols and Python/Go functions of one module, so unique.
func load(files []string) ([]*Decl, error) {
	var decls []*Decl
	names := map[string]*Decl{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		d, err := parseDecl(f, string(text))
		if err != nil {
			return nil, err
		}
		if prev, ok := names[d.Name]; ok {
			return nil, &declError{f, d.Line, fmt.Sprintf("kernel '%s' is also declared in %s:%d", d.Name, prev.File, prev.Line)}
		}
		names[d.Name] = d
		decls = append(decls, d)
	}
	return decls, nil
}
