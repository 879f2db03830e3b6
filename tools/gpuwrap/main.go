// Command gpuwrap runs a test on a GPU of its own: Bazel's --run_under for
// --config=gpu. Bazel keeps at most <gpu count> tests tagged
// resources:gpu:1 running at once (--local_resources=gpu=N, set by
// tools/bazel from the machine); gpuwrap gives each the first free GPU
// (CUDA_VISIBLE_DEVICES=<id>) and holds it until the test ends.
//
//	gpuwrap TEST [ARGS...]
//
// GPUs: CUBRIDGE_GPU_COUNT=N (0..N-1), else the inherited
// CUDA_VISIBLE_DEVICES list, else one per /dev/nvidiaN. With none, the test
// runs unchanged. A GPU is locked by an abstract Unix socket
// (@cubridge-gpu-<id>), so tests of several Bazel servers on one machine
// share the GPUs correctly too.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gpuwrap TEST [ARGS...]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2:]))
}

func say(msg string) { fmt.Fprintln(os.Stderr, "gpuwrap:", msg) }

func run(test string, args []string) int {
	ids, err := visibleDevices(os.Getenv, devDirDefault)
	if err != nil {
		say(err.Error())
		return 2
	}
	cmd := exec.Command(test, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	if len(ids) == 0 {
		say("no GPU on this machine; running the test as it is")
	} else {
		id, release := acquire(ids, socketLocker(lockPrefix), 200*time.Millisecond, 30*time.Second, say)
		defer release()
		say(fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s (one of %d GPUs)", id, len(ids)))
		cmd.Env = append(cmd.Env, "CUDA_VISIBLE_DEVICES="+id)
	}
	if err := cmd.Start(); err != nil {
		say(err.Error())
		return 127
	}
	// Bazel ends a test that times out with SIGTERM: pass it on.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range signals {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signaled() {
			return 128 + int(status.Signal())
		}
		return exit.ExitCode()
	default:
		say(err.Error())
		return 1
	}
}

// lockPrefix names the GPU locks (@<prefix><id>); tests change it.
var lockPrefix = "cubridge-gpu-"
