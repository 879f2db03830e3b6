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

	started := time.Now()
	require.NoError(t, p.stop(5*time.Second))
	assert.Less(t, time.Since(started), 4*time.Second, "SIGTERM was enough")
	_, alive = p.running()
	assert.False(t, alive)
	assert.NoFileExists(t, p.pidFile)
	_, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/cmdline")
	assert.True(t, err != nil || !isAlive(pid))
	require.NoError(t, p.stop(time.Second), "stopping again is fine")
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
