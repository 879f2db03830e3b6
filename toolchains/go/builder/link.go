package main

import (
	"fmt"
	"os"
)

// runLink links a main archive and every archive it imports into a binary:
// one action; the C/C++ libraries of cdeps are passed once to the external
// linker (alwayslink ones between --whole-archive and --no-whole-archive).
func runLink(args []string) error {
	var sf sdkFlags
	fs := sf.flagSet("link")
	out := fs.String("o", "", "output binary")
	mainArc := fs.String("main", "", "the archive of package main")
	stdlib := fs.String("stdlib", "", "directory of the standard library archives")
	external := fs.Bool("external", false, "link with the C linker (cgo with C/C++ libraries)")
	var arcs, extld, ldflags multiFlag
	fs.Var(&arcs, "arc", "importpath=file of a package in the binary (repeated)")
	fs.Var(&extld, "extldflag", "a flag for the external linker (repeated)")
	fs.Var(&ldflags, "ldflag", "an extra flag for go tool link (repeated)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *mainArc == "" {
		return fmt.Errorf("link: -o and -main are required")
	}
	s, err := newSDK(sf.goroot)
	if err != nil {
		return err
	}
	defer s.close()
	cfg, err := s.importcfg(*stdlib, arcs)
	if err != nil {
		return err
	}
	largs := []string{"-o", abs(s.root, *out), "-importcfg", cfg, "-buildid=", "-buildmode=exe"}
	if cc := os.Getenv("CC"); cc != "" {
		largs = append(largs, "-extld", abs(s.root, cc))
	}
	if *external {
		largs = append(largs, "-linkmode=external")
	}
	largs = append(largs, sf.instrumentFlags()...)
	if sf.asan {
		extld = append(extld, "-fsanitize=address")
	}
	if len(extld) > 0 {
		var flags []string
		for _, fl := range extld {
			flags = append(flags, absFlag(s.root, fl))
		}
		largs = append(largs, "-extldflags", quoteFlags(flags))
	}
	largs = append(largs, ldflags...)
	largs = append(largs, abs(s.root, *mainArc))
	// No GOROOT in the linker's environment, as `go build -trimpath` does: the
	// linker would otherwise record the SDK's absolute path (under the
	// sandbox of this action) as runtime.GOROOT(), and binaries built in two
	// output bases would differ. The importcfg names every archive.
	return s.run(s.root, s.env("GOROOT="), s.tool("link"), largs...)
}

// absFlag makes an archive or object path absolute (the external linker runs
// in a temporary directory); other flags pass unchanged.
func absFlag(root, fl string) string {
	if len(fl) > 0 && fl[0] != '-' {
		return abs(root, fl)
	}
	return fl
}
