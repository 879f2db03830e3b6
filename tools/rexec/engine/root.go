package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// account is a user of a root filesystem.
type account struct {
	name     string
	uid, gid uint32
	home     string
}

// lookupUser reads name's entry from root's /etc/passwd (not this machine's).
func lookupUser(root, name string) (account, error) {
	f, err := os.Open(filepath.Join(root, "etc/passwd"))
	if err != nil {
		return account{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 7 && fields[0] == name {
			uid, err1 := strconv.ParseUint(fields[2], 10, 32)
			gid, err2 := strconv.ParseUint(fields[3], 10, 32)
			if err1 != nil || err2 != nil {
				return account{}, fmt.Errorf("bad passwd entry for %s in %s", name, root)
			}
			return account{name: name, uid: uint32(uid), gid: uint32(gid), home: fields[5]}, nil
		}
	}
	if err := sc.Err(); err != nil {
		return account{}, err
	}
	return account{}, fmt.Errorf("no user %s in %s/etc/passwd", name, root)
}

// passedEnv is the part of this machine's environment that package clients
// inside a root need (pip's settings, proxies), as tools/bazel passes it.
func passedEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "PIP_"),
			name == "HTTP_PROXY", name == "HTTPS_PROXY", name == "NO_PROXY",
			name == "http_proxy", name == "https_proxy", name == "no_proxy",
			name == "SSL_CERT_FILE", name == "REQUESTS_CA_BUNDLE":
			env = append(env, kv)
		}
	}
	return env
}

// rootCommand is argv run inside root (chroot), as user (nil: root), with
// a clean environment plus extra. argv[0] is a path inside root.
func rootCommand(root string, user *account, extra []string, argv ...string) *exec.Cmd {
	home := "/root"
	attr := &syscall.SysProcAttr{Chroot: root}
	if user != nil {
		home = user.home
		attr.Credential = &syscall.Credential{Uid: user.uid, Gid: user.gid, Groups: []uint32{}}
	}
	env := append([]string{
		"HOME=" + home, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
	}, extra...)
	return &exec.Cmd{Path: argv[0], Args: argv, Env: env, Dir: "/", SysProcAttr: attr}
}

// runInRoot runs argv inside root and returns its combined output; a failure
// carries the output's tail.
func runInRoot(root string, user *account, extra []string, argv ...string) ([]byte, error) {
	cmd := rootCommand(root, user, extra, argv...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, tail(out.String(), 20))
	}
	return out.Bytes(), nil
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
