// Command builder runs the Go toolchain's own tools (compile, cgo, pack, link)
// for one Bazel action of cubridge's Go rules:
//
//	builder stdlib   -o DIR [-race] [-asan]           the standard library, one archive per package
//	builder compile  -importpath P -o X -linkobj A ...  one package (cgo part included)
//	builder testmain -importpath P -o X -linkobj A ...  the generated main of a go_test
//	builder link     -o BIN -main A ...                 one binary
//
// Every action works in a private temporary directory that is removed at the
// end; only the declared outputs are written. Paths of the execution root and
// of the temporary directory are trimmed from every output (-trimpath).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fatalf("usage: builder stdlib|compile|testmain|link [flags]")
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "stdlib":
		err = runStdlib(args)
	case "compile":
		err = runCompile(args)
	case "testmain":
		err = runTestmain(args)
	case "link":
		err = runLink(args)
	default:
		err = fmt.Errorf("unknown command %q (want stdlib, compile, testmain or link)", cmd)
	}
	if err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "cubridge go builder: "+format+"\n", args...)
	os.Exit(1)
}
