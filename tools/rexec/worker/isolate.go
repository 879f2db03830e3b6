package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

// actionInitArg, as the worker's first argument, makes it the first process
// of an isolated action (runCommand with isolate): in the action's own PID
// and mount namespaces it mounts a /proc of that PID namespace inside the
// root, enters the root and the working directory, and becomes the command
// (execve: the command stays the namespace's first process, whose end takes
// every process it started with it).
//
// Without its own /proc an action sees the worker's: /proc/PID of a process
// it started names another process (or none), /proc/self is not itself.
// Bazel's linux-sandbox does the same for the same reason.
const actionInitArg = "--rexec-action-init"

// isolationProbeArg, as the worker's first argument, only tries the first step
// of actionInit in new namespaces, and exits 0 when it works.
const isolationProbeArg = "--rexec-isolation-probe"

// canIsolate reports whether actions can get namespaces of their own here: as
// root, and where this process's root directory is a mount point. Inside a
// chroot whose root is not one (tools/bazel runs Bazel, and so the worker's
// own tests, in such a chroot) the mounts cannot be made private
// (EINVAL), and a /proc mounted then could reach the parent namespace.
var canIsolate = sync.OnceValue(func() bool {
	if os.Geteuid() != 0 {
		return false
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	cmd := exec.Command(self, isolationProbeArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	return cmd.Run() == nil
})

// privateMounts makes every mount of this (new) mount namespace private, so
// that mounts made here stay here.
func privateMounts() error {
	return syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, "")
}

// actionInitArgs: the worker's arguments that run args in root (""
// for this machine's) and dir.
func actionInitArgs(root, dir, prog string, args []string) []string {
	return append([]string{actionInitArg, root, dir, prog}, args...)
}

// actionInit runs in the new namespaces; it returns only on failure.
func actionInit(argv []string) error {
	if len(argv) < 4 {
		return fmt.Errorf("%s ROOT DIR PROGRAM ARGV0 [ARGS...]: got %d arguments", actionInitArg, len(argv))
	}
	root, dir, prog, args := argv[0], argv[1], argv[2], argv[3:]
	// Mounts made here stay in this namespace.
	if err := privateMounts(); err != nil {
		return fmt.Errorf("making the action's mounts private: %w", err)
	}
	proc := filepath.Join("/", root, "proc")
	if err := syscall.Mount("proc", proc, "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting the action's /proc on %s: %w", proc, err)
	}
	if root != "" {
		if err := syscall.Chroot(root); err != nil {
			return fmt.Errorf("chroot %s: %w", root, err)
		}
	}
	if err := syscall.Chdir(dir); err != nil {
		return fmt.Errorf("the working directory: %w", err)
	}
	if err := syscall.Exec(prog, args, os.Environ()); err != nil {
		return fmt.Errorf("%w: %s: %v", errNoProgram, prog, err)
	}
	return nil
}

// maybeActionInit: when the worker was started as an action's first process,
// become the action (or exit 127 saying why not); as the isolation probe,
// exit with its answer.
func maybeActionInit() {
	if len(os.Args) > 1 && os.Args[1] == isolationProbeArg {
		if privateMounts() != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == actionInitArg {
		err := actionInit(os.Args[2:])
		fmt.Fprintf(os.Stderr, "worker: starting the action: %v\n", err)
		os.Exit(127)
	}
}
