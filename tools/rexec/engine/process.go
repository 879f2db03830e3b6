package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is a long-running process `up` starts and `down` stops, known by a
// pid file. tag is a string its command line contains: a pid reused by an
// unrelated process is never signalled.
type proc struct {
	name    string
	pidFile string
	tag     string
}

// start runs cmd detached (its own session, output to logFile) and records
// its pid.
func (p proc) start(cmd *exec.Cmd, logFile string) error {
	if pid, alive := p.running(); alive {
		return fmt.Errorf("%s is already running (pid %d)", p.name, pid)
	}
	log, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdin = nil
	cmd.Stdout = log
	cmd.Stderr = log
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	if err := os.WriteFile(p.pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		cmd.Process.Kill()
		return err
	}
	// The process outlives this one: nobody waits for it but init.
	return cmd.Process.Release()
}

// running says whether the recorded process is alive and still ours.
func (p proc) running() (int, bool) {
	data, err := os.ReadFile(p.pidFile)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		return 0, false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !strings.Contains(string(cmdline), p.tag) {
		return pid, false
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && isZombie(string(stat)) {
		return pid, false
	}
	return pid, true
}

func isZombie(stat string) bool {
	i := strings.LastIndex(stat, ")")
	return i >= 0 && strings.HasPrefix(stat[i:], ") Z")
}

// stop sends SIGTERM, waits up to grace, then SIGKILL; it removes the pid
// file. Stopping what is not running is not an error.
func (p proc) stop(grace time.Duration) error {
	pid, alive := p.running()
	if !alive {
		os.Remove(p.pidFile)
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping %s (pid %d): %w", p.name, pid, err)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if _, alive := p.running(); !alive {
			os.Remove(p.pidFile)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 100; i++ {
		if _, alive := p.running(); !alive {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	os.Remove(p.pidFile)
	return nil
}
