package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestVisibleDevices(t *testing.T) {
	dev := t.TempDir()
	for _, n := range []string{"nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm", "nvidia-caps"} {
		require.NoError(t, os.WriteFile(filepath.Join(dev, n), nil, 0o644))
	}
	ids, err := visibleDevices(env(nil), dev)
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "1", "2"}, ids, "one per /dev/nvidiaN")

	ids, err = visibleDevices(env(map[string]string{"CUDA_VISIBLE_DEVICES": "2, 5"}), dev)
	require.NoError(t, err)
	assert.Equal(t, []string{"2", "5"}, ids, "the inherited CUDA_VISIBLE_DEVICES")

	ids, err = visibleDevices(env(map[string]string{"CUBRIDGE_GPU_COUNT": "4", "CUDA_VISIBLE_DEVICES": "1"}), dev)
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "1", "2", "3"}, ids, "CUBRIDGE_GPU_COUNT first")

	_, err = visibleDevices(env(map[string]string{"CUBRIDGE_GPU_COUNT": "two"}), dev)
	assert.ErrorContains(t, err, `CUBRIDGE_GPU_COUNT="two" is not a count`)

	ids, err = visibleDevices(env(nil), filepath.Join(dev, "missing"))
	require.NoError(t, err)
	assert.Empty(t, ids, "no GPU")
}

// fakeLocks is an in-memory locker.
type fakeLocks struct {
	mu   sync.Mutex
	held map[string]bool
}

func (f *fakeLocks) lock(id string) (func(), bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[id] {
		return nil, false
	}
	f.held[id] = true
	return func() { f.mu.Lock(); delete(f.held, id); f.mu.Unlock() }, true
}

func TestAcquireGivesEachTestItsOwnGPU(t *testing.T) {
	locks := &fakeLocks{held: map[string]bool{}}
	ids := []string{"0", "1", "2", "3"}
	got := make([]string, len(ids))
	releases := make([]func(), len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], releases[i] = acquire(ids, locks.lock, time.Millisecond, time.Hour, func(string) {})
		}(i)
	}
	wg.Wait()
	sort.Strings(got)
	assert.Equal(t, ids, got, "four tests, four different GPUs")

	// A fifth waits, says so, and gets the GPU the first one to finish gives back.
	var said []string
	done := make(chan string)
	go func() {
		id, _ := acquire(ids, locks.lock, time.Millisecond, 20*time.Millisecond, func(s string) { said = append(said, s) })
		done <- id
	}()
	select {
	case id := <-done:
		t.Fatalf("got GPU %s while all were taken", id)
	case <-time.After(100 * time.Millisecond):
	}
	// releases[i] belongs to the goroutine that got an unsorted id: find it.
	var freed string
	for id := range locks.held {
		freed = id
		break
	}
	locks.mu.Lock()
	delete(locks.held, freed)
	locks.mu.Unlock()
	assert.Equal(t, freed, <-done)
	require.NotEmpty(t, said)
	assert.Contains(t, said[0], "all 4 GPUs (0,1,2,3) busy")
}

func TestSocketLocker(t *testing.T) {
	lock := socketLocker(fmt.Sprintf("cubridge-gpuwrap-test-%d-", os.Getpid()))
	release, ok := lock("0")
	require.True(t, ok)
	_, again := lock("0")
	assert.False(t, again, "a held GPU cannot be taken twice")
	other, ok := lock("1")
	require.True(t, ok)
	other()
	release()
	release, ok = lock("0")
	assert.True(t, ok, "released")
	release()
}

// Two wrapped tests at once on a 2-GPU machine see different devices; the
// exit status comes through.
func TestRunAssignsDistinctDevices(t *testing.T) {
	lockPrefix = fmt.Sprintf("cubridge-gpuwrap-run-%d-", os.Getpid())
	t.Setenv("CUBRIDGE_GPU_COUNT", "2")
	dir := t.TempDir()
	script := filepath.Join(dir, "test.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$CUDA_VISIBLE_DEVICES\" > \"$1\"\nsleep 0.3\nexit \"$2\"\n"), 0o755))
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			codes[i] = run(script, []string{filepath.Join(dir, fmt.Sprint(i)), fmt.Sprint(i * 3)})
		}(i)
	}
	wg.Wait()
	assert.Equal(t, []int{0, 3}, codes)
	var seen []string
	for i := range codes {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint(i)))
		require.NoError(t, err)
		seen = append(seen, strings.TrimSpace(string(b)))
	}
	sort.Strings(seen)
	assert.Equal(t, []string{"0", "1"}, seen)

	t.Setenv("CUBRIDGE_GPU_COUNT", "0")
	assert.Equal(t, 0, run(script, []string{filepath.Join(dir, "none"), "0"}), "no GPU: the test runs as it is")
	b, _ := os.ReadFile(filepath.Join(dir, "none"))
	assert.Equal(t, "", strings.TrimSpace(string(b)))
}
