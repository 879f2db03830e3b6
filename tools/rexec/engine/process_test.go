package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProcStartStopIdempotent(t *testing.T) {
	dir := t.TempDir()
	p := proc{name: "sleeper", pidFile: filepath.Join(dir, "sleeper.pid"), tag: "sleep"}
	require.NoError(t, p.start(exec.Command("sleep", "60"), filepath.Join(dir, "sleeper.log")))
	pid, alive := p.running()
	require.True(t, alive)
	assert.Error(t, p.start(exec.Command("sleep", "60"), filepath.Join(dir, "sleeper.log")), "one at a time")

	// A long grace: a loaded machine may be slow, and only SIGKILL says the
	// SIGTERM was not enough.
	killed, err := p.terminate(time.Minute)
	require.NoError(t, err)
	assert.False(t, killed, "SIGTERM was enough")
	_, alive = p.running()
	assert.False(t, alive)
	assert.NoFileExists(t, p.pidFile)
	_, err = os.Stat("/proc/" + strconv.Itoa(pid) + "/cmdline")
	assert.True(t, err != nil || !isAlive(pid))
	require.NoError(t, p.stop(time.Second), "stopping again is fine")
}

// start returns only once the new process carries its command line, so a
// running() right after start sees it (the kernel fills /proc/PID/cmdline
// after execve has let the parent go on; on a busy machine that gap showed).
func TestProcIsRunningAsSoonAsStarted(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 50; i++ {
		p := proc{name: "sleeper", pidFile: filepath.Join(dir, "sleeper.pid"), tag: "sleep"}
		require.NoError(t, p.start(exec.Command("sleep", "60"), filepath.Join(dir, "sleeper.log")))
		_, alive := p.running()
		require.True(t, alive, "start %d", i)
		killed, err := p.terminate(time.Minute)
		require.NoError(t, err)
		require.False(t, killed)
	}
}

// A process that exits at once is an error of start, with its log's end.
func TestProcStartReportsAnExitAtOnce(t *testing.T) {
	dir := t.TempDir()
	p := proc{name: "broken", pidFile: filepath.Join(dir, "broken.pid"), tag: "no-such-tag"}
	err := p.start(exec.Command("sh", "-c", "echo bad configuration >&2; exit 3"), filepath.Join(dir, "broken.log"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "broken (pid")
	assert.Contains(t, err.Error(), "bad configuration")
	assert.NoFileExists(t, p.pidFile)
}

// A pid file whose pid now belongs to another program is not signalled.
func TestProcNeverSignalsAReusedPid(t *testing.T) {
	dir := t.TempDir()
	other := exec.Command("sleep", "60")
	require.NoError(t, other.Start())
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	p := proc{name: "bgd", pidFile: filepath.Join(dir, "bgd.pid"), tag: "bgd"}
	require.NoError(t, os.WriteFile(p.pidFile, []byte(strconv.Itoa(other.Process.Pid)+"\n"), 0o644))
	_, alive := p.running()
	assert.False(t, alive)
	require.NoError(t, p.stop(time.Second))
	assert.True(t, isAlive(other.Process.Pid), "the unrelated sleep still runs")
}

func isAlive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !isZombie(string(stat))
}

func TestMissingDirsListsWhatBindWillCreate(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a"), 0o755))
	assert.Equal(t, []string{filepath.Join(root, "a/b/c"), filepath.Join(root, "a/b")}, missingDirs(filepath.Join(root, "a/b/c")))
	assert.Empty(t, missingDirs(filepath.Join(root, "a")))
}

func TestStartTimeNamesOneProcess(t *testing.T) {
	self, ok := startTime(os.Getpid())
	require.True(t, ok)
	again, _ := startTime(os.Getpid())
	assert.Equal(t, self, again)

	child := exec.Command("sh", "-c", "exit 0")
	require.NoError(t, child.Start())
	pid := child.Process.Pid
	// Exited but not reaped: a zombie, no longer a live process.
	require.True(t, waitUntil(func() bool { _, ok := startTime(pid); return !ok }, time.Minute))
	require.NoError(t, child.Wait())
	_, ok = startTime(pid)
	assert.False(t, ok)
}
