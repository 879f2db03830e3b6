package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// runSpec is one command to run for an action.
type runSpec struct {
	rootfs string // chroot into it first; "" runs on this machine as it is
	dir    string // working directory: the same path inside the rootfs (bind-mounted there)
	args   []string
	env    []string // exactly the Command's environment, nothing inherited
	stdout string   // files that receive the output streams
	stderr string
	// timeout ends the command (and everything it started); 0: none.
	timeout time.Duration
	// isolate runs the command as the first process of a PID namespace of its
	// own (needs root): when it ends, is killed, or the worker dies, every
	// process it started dies with it. It has a mount namespace of its own
	// too, with a /proc of its PID namespace (isolate.go).
	isolate bool
}

// runResult is how the command ended.
type runResult struct {
	exitCode  int
	timedOut  bool
	cancelled bool
	start     time.Time
	end       time.Time
}

// errNoProgram: the command's program is not there to run.
var errNoProgram = errors.New("program not found")

// resolveProgram finds the program of args[0] as seen from inside the rootfs:
// an absolute path, a path relative to the working directory, or a bare name
// looked up in the command's own PATH (REAPI's rule). The path it returns is
// the one to execute, relative to the working directory when args[0] or the
// PATH entry is, as Bazel executes it locally: a script sees that path as $0
// (the kernel hands the interpreter the executed path), and tools that find
// their files from it write it into their outputs (nvcc, through cubridge's
// wrapper, put it into device-link objects: absolute paths of the worker's
// directory made them differ from a local build).
func resolveProgram(rootfs, dir, arg0 string, env []string) (string, error) {
	if arg0 == "" {
		return "", errors.New("the command has no arguments")
	}
	if strings.Contains(arg0, "/") {
		return arg0, nil
	}
	pathVar := "/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			d = "."
		}
		candidate := filepath.Join(d, arg0)
		if !strings.Contains(candidate, "/") {
			candidate = "./" + candidate // PATH's ".": a path, not a name to look up
		}
		info, err := os.Stat(inRoot(rootfs, dir, candidate))
		if err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("%w: %q is in no directory of PATH=%s", errNoProgram, arg0, pathVar)
}

// inRoot is where path, as the command sees it from dir, lies on this machine.
func inRoot(rootfs, dir, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return filepath.Join("/", rootfs, path)
}

// runCommand runs the command to its end, its timeout, or ctx's cancellation
// (a cancelled lease), whichever comes first.
func runCommand(ctx context.Context, s runSpec) (runResult, error) {
	prog, err := resolveProgram(s.rootfs, s.dir, s.args[0], s.env)
	if err != nil {
		return runResult{}, err
	}
	stdout, err := os.Create(s.stdout)
	if err != nil {
		return runResult{}, err
	}
	defer stdout.Close()
	stderr, err := os.Create(s.stderr)
	if err != nil {
		return runResult{}, err
	}
	defer stderr.Close()

	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd := &exec.Cmd{
		Path: prog, Args: s.args, Env: s.env, Dir: s.dir,
		Stdout: stdout, Stderr: stderr, SysProcAttr: attr,
	}
	if s.isolate {
		// The worker itself starts in the new namespaces, mounts the
		// action's /proc, enters the root and becomes the command
		// (isolate.go).
		// The program must be there to run: the helper could only exit.
		if _, err := os.Stat(inRoot(s.rootfs, s.dir, prog)); err != nil {
			return runResult{}, fmt.Errorf("%w: %s: %v", errNoProgram, prog, err)
		}
		self, err := os.Executable()
		if err != nil {
			return runResult{}, err
		}
		attr.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		cmd.Path, cmd.Dir = self, "/"
		cmd.Args = append([]string{self}, actionInitArgs(s.rootfs, s.dir, prog, s.args)...)
	} else {
		attr.Chroot = s.rootfs
		attr.Setpgid = true
	}
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean: inherit the worker's
	}

	type started struct {
		pid int
		err error
	}
	startedCh := make(chan started, 1)
	waited := make(chan error, 1)
	var res runResult
	go func() {
		// Pdeathsig fires when the thread that started the child exits, so
		// that thread stays locked (and alive) until the child is reaped.
		runtime.LockOSThread()
		res.start = time.Now()
		if err := cmd.Start(); err != nil {
			startedCh <- started{err: err}
			return
		}
		startedCh <- started{pid: cmd.Process.Pid}
		waited <- cmd.Wait()
	}()
	st := <-startedCh
	if st.err != nil {
		if errors.Is(st.err, os.ErrNotExist) {
			return runResult{}, fmt.Errorf("%w: %s: %v", errNoProgram, prog, st.err)
		}
		return runResult{}, st.err
	}
	kill := func() {
		if s.isolate {
			// The first process of the namespace: the kernel kills the rest.
			syscall.Kill(st.pid, syscall.SIGKILL)
		} else {
			syscall.Kill(-st.pid, syscall.SIGKILL)
		}
	}
	var timeout <-chan time.Time
	if s.timeout > 0 {
		t := time.NewTimer(s.timeout)
		defer t.Stop()
		timeout = t.C
	}
	var waitErr error
	select {
	case waitErr = <-waited:
	case <-timeout:
		res.timedOut = true
		kill()
		waitErr = <-waited
	case <-ctx.Done():
		res.cancelled = true
		kill()
		waitErr = <-waited
	}
	res.end = time.Now()
	if !s.isolate {
		kill() // whatever the command left running in its process group
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return res, waitErr
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		res.exitCode = 128 + int(ws.Signal())
	} else {
		res.exitCode = ws.ExitStatus()
	}
	return res, nil
}
