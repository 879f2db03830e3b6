// Command cubridge-info prints the cubridge backend in use and the visible
// CUDA devices, then runs a self-check: a few operations through the library
// compared with plain Go. It exits with status 1 if any check fails. It is
// the first thing to run after installing cubridge.
//
// Usage:
//
//	cubridge-info            # backend chosen by CUBRIDGE_BACKEND (default auto)
//	CUBRIDGE_BACKEND=cpu cubridge-info
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/cubridge/cubridge/go/cubridge"
)

func main() {
	os.Exit(run(os.Stdout))
}

func run(w io.Writer) int {
	major, minor, patch := cubridge.Version()
	fmt.Fprintf(w, "cubridge %d.%d.%d\n", major, minor, patch)
	backend, err := cubridge.Backend()
	if err != nil {
		fmt.Fprintf(w, "backend: %v\n", err)
		return 1
	}
	fmt.Fprintf(w, "backend: %v\n", backend)
	devices, err := cubridge.Devices()
	if err != nil {
		fmt.Fprintf(w, "devices: %v\n", err)
		return 1
	}
	fmt.Fprintf(w, "devices: %d\n", len(devices))
	for _, d := range devices {
		fmt.Fprintf(w, "  %d: %s\n", d.Index, d.Name)
	}
	what := "current device"
	if backend == cubridge.BackendCPU {
		what = "host"
	}
	if free, total, err := cubridge.MemInfo(); err != nil {
		fmt.Fprintf(w, "memory: %v\n", err)
	} else {
		fmt.Fprintf(w, "memory (%s): %.1f GiB free of %.1f GiB\n", what,
			float64(free)/(1<<30), float64(total)/(1<<30))
	}

	failed := 0
	for _, c := range selfChecks() {
		err := c.run()
		status := "ok"
		if err != nil {
			status = "FAIL: " + err.Error()
			failed++
		}
		fmt.Fprintf(w, "check %-30s %s\n", c.name, status)
	}
	if failed > 0 {
		fmt.Fprintf(w, "self-check: %d failed\n", failed)
		return 1
	}
	fmt.Fprintln(w, "self-check: all passed")
	return 0
}
