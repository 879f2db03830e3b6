package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain: an isolated command starts as the worker binary (here the test
// binary) in its new namespaces (isolate.go).
func TestMain(m *testing.M) {
	maybeActionInit()
	os.Exit(m.Run())
}

func testSpec(t *testing.T, args ...string) runSpec {
	dir := t.TempDir()
	return runSpec{
		dir: dir, args: args, env: []string{"PATH=/usr/bin:/bin", "GREETING=hi"},
		stdout: filepath.Join(dir, ".stdout"), stderr: filepath.Join(dir, ".stderr"),
		isolate: canIsolate(),
	}
}

func readString(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func TestRunCommandExitCodeStreamsAndOnlyItsEnvironment(t *testing.T) {
	t.Setenv("WORKER_SECRET", "must not leak")
	s := testSpec(t, "sh", "-c", `echo "$GREETING ${WORKER_SECRET:-unset} $(pwd)"; echo oops >&2; exit 3`)
	res, err := runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 3, res.exitCode)
	assert.False(t, res.timedOut)
	assert.Equal(t, "hi unset "+s.dir+"\n", readString(t, s.stdout))
	assert.Equal(t, "oops\n", readString(t, s.stderr))
}

// An isolated command sees a /proc of its own PID namespace: it is process 1
// there, and /proc/self is itself (with the worker's /proc it would be
// another number), as Go's and Python's process tests expect.
func TestRunCommandIsolatedHasItsOwnProc(t *testing.T) {
	if !canIsolate() {
		t.Skip("isolation needs root, and a root directory that is a mount point (not tools/bazel's chroot)")
	}
	s := testSpec(t, "sh", "-c", `read pid rest < /proc/self/stat; echo "$$ $pid $(cat /proc/1/comm)"`)
	res, err := runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0, res.exitCode, readString(t, s.stderr))
	assert.Equal(t, "1 1 sh\n", readString(t, s.stdout))
	// The worker's own /proc is untouched.
	self, err := os.Readlink("/proc/self")
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(os.Getpid()), self)
}

func TestRunCommandResolvesRelativeProgramsAgainstTheWorkingDirectory(t *testing.T) {
	s := testSpec(t, "tools/run.sh")
	writeFile(t, filepath.Join(s.dir, "tools/run.sh"), "#!/bin/sh\necho relative\n", 0o755)
	res, err := runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0, res.exitCode)
	assert.Equal(t, "relative\n", readString(t, s.stdout))
}

// A program given by a relative path, or found through a relative PATH
// entry, is executed by that relative path, as Bazel does locally: a script
// sees it as $0 (nvcc's wrapper finds the toolkit from it, and nvcc writes
// what it finds into device-link objects).
func TestRunCommandExecutesRelativeProgramsByTheirRelativePath(t *testing.T) {
	s := testSpec(t, "tools/run.sh")
	writeFile(t, filepath.Join(s.dir, "tools/run.sh"), "#!/bin/sh\necho \"$0\"\n", 0o755)
	res, err := runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0, res.exitCode, readString(t, s.stderr))
	assert.Equal(t, "tools/run.sh\n", readString(t, s.stdout))

	s.args = []string{"run.sh"}
	s.env = []string{"PATH=/usr/bin:/bin:tools"}
	res, err = runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0, res.exitCode, readString(t, s.stderr))
	assert.Equal(t, "tools/run.sh\n", readString(t, s.stdout))
}

func TestRunCommandMissingProgram(t *testing.T) {
	_, err := runCommand(context.Background(), testSpec(t, "no-such-program-here"))
	assert.ErrorIs(t, err, errNoProgram)
	_, err = runCommand(context.Background(), testSpec(t, "/no/such/program"))
	assert.ErrorIs(t, err, errNoProgram)
}

// background starts a process named marker that would sleep for a minute,
// and writes "alive" once it runs: proof that there was something to kill.
func background(marker string) string {
	return `bash -c 'echo alive > alive; exec -a ` + marker + ` sleep 60' & `
}

func uniqueMarker(t *testing.T) string {
	return "rexec-worker-test-" + strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(t.Name(), "/", "-")
}

// A timed-out command is killed with everything it started.
func TestRunCommandTimeoutKillsTheWholeCommand(t *testing.T) {
	marker := uniqueMarker(t)
	s := testSpec(t, "bash", "-c", background(marker)+`sleep 30`)
	s.timeout = 500 * time.Millisecond
	started := time.Now()
	res, err := runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.True(t, res.timedOut)
	assert.Less(t, time.Since(started), 5*time.Second)
	assert.Equal(t, 128+int(syscall.SIGKILL), res.exitCode)
	assert.Equal(t, "alive\n", readString(t, filepath.Join(s.dir, "alive")))
	assertNoProcessNamed(t, marker)
}

func TestRunCommandCancelKillsTheWholeCommand(t *testing.T) {
	marker := uniqueMarker(t)
	s := testSpec(t, "bash", "-c", background(marker)+`sleep 30`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	started := time.Now()
	res, err := runCommand(ctx, s)
	require.NoError(t, err)
	assert.True(t, res.cancelled)
	assert.Less(t, time.Since(started), 5*time.Second)
	assert.Equal(t, "alive\n", readString(t, filepath.Join(s.dir, "alive")))
	assertNoProcessNamed(t, marker)
}

// A command that leaves a daemon behind and exits: the daemon dies with it.
func TestRunCommandLeavesNoProcessBehind(t *testing.T) {
	marker := uniqueMarker(t)
	s := testSpec(t, "bash", "-c", background(marker)+`sleep 0.3; exit 0`)
	res, err := runCommand(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 0, res.exitCode)
	assert.Equal(t, "alive\n", readString(t, filepath.Join(s.dir, "alive")))
	assertNoProcessNamed(t, marker)
}

func assertNoProcessNamed(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for processNamed(t, name) {
		if time.Now().After(deadline) {
			t.Fatalf("a process named %s outlived its command", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processNamed says whether a live process has argv[0] == name (a zombie's
// command line is empty).
func processNamed(t *testing.T, name string) bool {
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(cmdline), name+"\x00") {
			return true
		}
	}
	return false
}
