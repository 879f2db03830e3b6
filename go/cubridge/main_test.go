package cubridge_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/cubridge/cubridge/go/cubridge"
)

// TestMain ends the run as a program should: Buffers the collector still owes
// a cleanup are freed, then the library releases every cache it keeps, so a
// leak checker at exit (go test -asan, compute-sanitizer) sees nothing kept.
func TestMain(m *testing.M) {
	code := m.Run()
	for i := 0; i < 3; i++ { // cleanups run after a collection, on their own goroutine
		runtime.GC()
		runtime.Gosched()
	}
	if err := cubridge.Shutdown(); err != nil {
		fmt.Fprintln(os.Stderr, "cubridge.Shutdown:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
