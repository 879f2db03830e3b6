package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// visibleDevices are the GPUs this process may hand out, by the IDs
// CUDA_VISIBLE_DEVICES takes: CUBRIDGE_GPU_COUNT=N gives 0..N-1, else the
// CUDA_VISIBLE_DEVICES list the test inherited, else one per /dev/nvidiaN.
func visibleDevices(getenv func(string) string, devDir string) ([]string, error) {
	if n := getenv("CUBRIDGE_GPU_COUNT"); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 {
			return nil, fmt.Errorf("CUBRIDGE_GPU_COUNT=%q is not a count", n)
		}
		return indices(count), nil
	}
	if v := getenv("CUDA_VISIBLE_DEVICES"); v != "" {
		var ids []string
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
	return indices(countDeviceNodes(devDir)), nil
}

func indices(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	return ids
}

var deviceNode = regexp.MustCompile(`^nvidia[0-9]+$`)

// countDeviceNodes counts /dev/nvidia0, /dev/nvidia1, ... (one per GPU).
func countDeviceNodes(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if deviceNode.MatchString(e.Name()) {
			n++
		}
	}
	return n
}

// locker takes the lock of one GPU; ok is false when another process holds it.
type locker func(id string) (release func(), ok bool)

// socketLocker locks a GPU by binding an abstract Unix socket named after it:
// machine-wide (every sandbox and Bazel server of the host sees the same
// names), and released by the kernel when the holder exits, even on a crash.
func socketLocker(prefix string) locker {
	return func(id string) (func(), bool) {
		l, err := net.Listen("unix", "@"+prefix+id)
		if err != nil {
			return nil, false
		}
		return func() { l.Close() }, true
	}
}

// acquire takes the first free GPU of ids, waiting (and saying so every
// `every`) while all are taken: Bazel's gpu resource normally keeps at most
// len(ids) GPU tests running, so waiting only happens when it was set higher.
func acquire(ids []string, lock locker, poll, every time.Duration, say func(string)) (string, func()) {
	start := time.Now()
	next := every
	for {
		for _, id := range ids {
			if release, ok := lock(id); ok {
				return id, release
			}
		}
		if waited := time.Since(start); waited >= next {
			say(fmt.Sprintf("all %d GPUs (%s) busy for %s, waiting", len(ids), strings.Join(ids, ","), waited.Round(time.Second)))
			next += every
		}
		time.Sleep(poll)
	}
}

// devDirDefault is where the GPU device nodes live.
var devDirDefault = filepath.Join("/", "dev")
