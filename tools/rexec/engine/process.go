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
	if err := p.waitExeced(cmd.Process.Pid, execWait); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(p.pidFile)
		return fmt.Errorf("%w; its log %s ends:\n%s", err, logFile, logTail(logFile))
	}
	// The process outlives this one: nobody waits for it but init.
	return cmd.Process.Release()
}

// execWait bounds how long start waits for a new process's command line.
const execWait = 30 * time.Second

// waitExeced waits until the new process's command line is the one it was
// started with. cmd.Start returns once execve has begun, but the kernel
// fills /proc/PID/cmdline a moment later (empty until then): on a busy
// machine a running() right after start would call a fresh process dead.
func (p proc) waitExeced(pid int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			return fmt.Errorf("%s (pid %d) exited at once", p.name, pid)
		}
		if strings.Contains(string(cmdline), p.tag) {
			return nil
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || isZombie(string(stat)) {
			return fmt.Errorf("%s (pid %d) exited at once", p.name, pid)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s (pid %d): its command line does not name %q after %v", p.name, pid, p.tag, limit)
		}
		time.Sleep(delay)
	}
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
	_, err := p.terminate(grace)
	return err
}

// terminate is stop, saying whether SIGKILL was needed. Once running() has
// said the pid is ours, the process is followed by its start time, not its
// command line: an exiting process drops its command line before it closes
// its files and sockets, and stop returns only when it is gone (a zombie
// holds neither). A pid reused meanwhile has another start time.
func (p proc) terminate(grace time.Duration) (killed bool, err error) {
	pid, alive := p.running()
	if !alive {
		os.Remove(p.pidFile)
		return false, nil
	}
	started, ok := startTime(pid)
	if !ok {
		os.Remove(p.pidFile)
		return false, nil
	}
	gone := func() bool {
		t, ok := startTime(pid)
		return !ok || t != started
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return false, fmt.Errorf("stopping %s (pid %d): %w", p.name, pid, err)
	}
	if waitUntil(gone, grace) {
		os.Remove(p.pidFile)
		return false, nil
	}
	syscall.Kill(pid, syscall.SIGKILL)
	if !waitUntil(gone, 30*time.Second) {
		return true, fmt.Errorf("%s (pid %d) outlived SIGKILL by 30 s", p.name, pid)
	}
	os.Remove(p.pidFile)
	return true, nil
}

// waitUntil polls cond until it holds or limit has passed.
func waitUntil(cond func() bool, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startTime is field 22 of /proc/PID/stat (clock ticks after boot); ok is
// false when no such process lives (none, or a zombie).
func startTime(pid int) (string, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil || isZombie(string(stat)) {
		return "", false
	}
	s := string(stat)
	// The command name (field 2) may hold spaces: count from its ')'.
	fields := strings.Fields(s[strings.LastIndex(s, ")")+1:])
	if len(fields) < 20 {
		return "", false
	}
	return fields[19], true
}
