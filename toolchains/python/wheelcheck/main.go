// Command wheelcheck verifies that a Linux wheel's native code fits its tags:
// the glibc symbol versions its shared objects need are covered by the
// manylinux_X_Y platform tag, no libstdc++/libgcc_s symbol versions leak in
// (the C++ runtime must be linked statically), only allowed system libraries
// are needed, and an extension module exports nothing but PyInit_<name>.
//
// Usage:
//
//	wheelcheck [-external GLOB]... WHEEL...       check wheels
//	wheelcheck tag [-expect TAG] [-out FILE] SO...  the platform tag shared objects need
//	wheelcheck retag -platform TAG|auto -out-dir DIR WHEEL  the wheel under that tag
//
// -external names a library the wheel's requirements provide, not the system
// (libcublas.so.* from nvidia-cublas): a shell pattern on the soname, as
// auditwheel's --exclude; a wheel may need it. Repeat it for several.
//
// The tag is manylinux_X_Y_ARCH from the newest GLIBC_X.Y symbol version; retag
// serves cubridge's py_wheel, which derives it (platform = "auto") or checks a
// hand-written one for a wheel that rules_python's py_wheel wrote.
package main

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "tag" || os.Args[1] == "retag") {
		run := map[string]func([]string) error{"tag": tagMain, "retag": retagMain}[os.Args[1]]
		if err := run(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "wheelcheck %s: %v\n", os.Args[1], err)
			os.Exit(1)
		}
		return
	}
	flags := flag.NewFlagSet("wheelcheck", flag.ExitOnError)
	var external patterns
	flags.Var(&external, "external", "a `GLOB` of sonames the wheel's requirements provide (repeatable)")
	flags.Usage = func() {
		fmt.Fprintln(flags.Output(), "usage: wheelcheck [-external GLOB]... WHEEL...")
		flags.PrintDefaults()
	}
	_ = flags.Parse(os.Args[1:]) // ExitOnError
	if flags.NArg() == 0 {
		flags.Usage()
		os.Exit(2)
	}
	failed := false
	for _, wheel := range flags.Args() {
		problems, err := checkWheel(wheel, external, os.Stdout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", wheel, err)
			failed = true
			continue
		}
		for _, p := range problems {
			fmt.Fprintf(os.Stderr, "%s: %s\n", wheel, p)
		}
		failed = failed || len(problems) > 0
	}
	if failed {
		os.Exit(1)
	}
}

// patterns is a repeatable flag of shell patterns (path.Match), checked when set.
type patterns []string

func (p *patterns) String() string { return strings.Join(*p, ",") }

func (p *patterns) Set(glob string) error {
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("bad pattern %q: %w", glob, err)
	}
	*p = append(*p, glob)
	return nil
}

func (p patterns) match(name string) bool {
	for _, glob := range p {
		if ok, _ := path.Match(glob, name); ok {
			return true
		}
	}
	return false
}

// checkWheel reports every way the wheel's shared objects break its tags.
// Libraries matching external are the wheel's requirements' to provide.
func checkWheel(wheel string, external patterns, out io.Writer) ([]string, error) {
	tag, err := platformTag(path.Base(wheel))
	if err != nil {
		return nil, err
	}
	allowed, err := manylinuxGlibc(tag)
	if err != nil {
		return nil, err
	}
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var problems []string
	objects := 0
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".so") {
			continue
		}
		objects++
		data, err := readAll(f)
		if err != nil {
			return nil, err
		}
		needs, err := inspect(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		fmt.Fprintf(out, "%s: needs glibc %s (tag %s allows %s); libraries %v\n",
			f.Name, needs.glibc, tag, allowed, needs.libraries)
		problems = append(problems, needs.problems(f.Name, allowed, tagArch(tag), external)...)
	}
	if objects == 0 && tag != "any" {
		problems = append(problems, "platform tag "+tag+" but no shared object inside")
	}
	return problems, nil
}

func readAll(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// elfNeeds is what one shared object asks of the system.
type elfNeeds struct {
	arch        string // as wheel tags name it (elfArch)
	glibc       version
	libraries   []string
	cxxVersions []string // GLIBCXX_/CXXABI_/GCC_ versions: the C++ runtime leaked in
	exports     []string // defined global functions
}

func inspect(data []byte) (elfNeeds, error) {
	var n elfNeeds
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return n, err
	}
	defer f.Close()
	n.arch = elfArch[f.Machine]
	if n.libraries, err = f.ImportedLibraries(); err != nil {
		return n, err
	}
	imported, err := f.ImportedSymbols()
	if err != nil {
		return n, err
	}
	for _, s := range imported {
		switch {
		case strings.HasPrefix(s.Version, "GLIBC_"):
			if v, err := parseVersion(strings.TrimPrefix(s.Version, "GLIBC_")); err == nil && n.glibc.less(v) {
				n.glibc = v
			}
		case strings.HasPrefix(s.Version, "GLIBCXX_"), strings.HasPrefix(s.Version, "CXXABI_"):
			n.cxxVersions = append(n.cxxVersions, s.Name+"@"+s.Version)
		}
	}
	symbols, err := f.DynamicSymbols()
	if err != nil {
		return n, err
	}
	for _, s := range symbols {
		if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL &&
			elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			n.exports = append(n.exports, s.Name)
		}
	}
	return n, nil
}

// allowedLibraries are those every manylinux system provides (PEP 599/600),
// besides the dynamic loader of the architecture (dynamicLoader).
var allowedLibraries = map[string]bool{
	"libc.so.6": true, "libm.so.6": true, "libdl.so.2": true, "libpthread.so.0": true,
	"librt.so.1": true, "libgcc_s.so.1": true,
}

// dynamicLoader is glibc's dynamic loader of each architecture, which an object
// may name (aarch64 objects do: _dl_find_object lives there).
var dynamicLoader = map[string]string{
	"x86_64": "ld-linux-x86-64.so.2", "aarch64": "ld-linux-aarch64.so.1", "i686": "ld-linux.so.2",
	"ppc64le": "ld64.so.2", "s390x": "ld64.so.1", "riscv64": "ld-linux-riscv64-lp64d.so.1",
}

// tagArch is the architecture of a platform tag: manylinux_2_35_aarch64 -> aarch64.
func tagArch(tag string) string {
	for _, arch := range elfArch {
		if strings.HasSuffix(tag, "_"+arch) {
			return arch
		}
	}
	return ""
}

func (n elfNeeds) problems(name string, allowed version, arch string, external patterns) []string {
	var p []string
	if n.arch != arch {
		p = append(p, fmt.Sprintf("%s is %s code in a wheel tagged for %q", name, n.arch, arch))
	}
	if allowed.less(n.glibc) {
		p = append(p, fmt.Sprintf("%s needs glibc %s, more than the tag's %s", name, n.glibc, allowed))
	}
	for _, lib := range n.libraries {
		if !allowedLibraries[lib] && lib != dynamicLoader[arch] && !external.match(lib) {
			p = append(p, fmt.Sprintf("%s needs %s, which manylinux does not provide", name, lib))
		}
	}
	if len(n.cxxVersions) > 0 {
		p = append(p, fmt.Sprintf("%s imports C++ runtime symbols (link it statically): %v", name, n.cxxVersions[:min(3, len(n.cxxVersions))]))
	}
	if strings.HasSuffix(name, ".abi3.so") || strings.Contains(name, ".cpython-") {
		module := strings.SplitN(path.Base(name), ".", 2)[0]
		for _, e := range n.exports {
			if e != "PyInit_"+module {
				p = append(p, fmt.Sprintf("%s exports %s; an extension should export only PyInit_%s", name, e, module))
			}
		}
	}
	return p
}
