package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// mountPoints lists the mount points of this mount namespace.
func mountPoints() (map[string]bool, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	points := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 {
			points[unescapeMount(fields[4])] = true
		}
	}
	return points, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (a space is \040).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+4], "%03o", &c); err == nil {
				b.WriteByte(c)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isMountPoint(path string) (bool, error) {
	points, err := mountPoints()
	if err != nil {
		return false, err
	}
	return points[path], nil
}

// mount mounts unless something already is at target.
func mount(source, target, fstype string, flags uintptr, data string) error {
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	if ok, err := isMountPoint(target); err != nil || ok {
		return err
	}
	if err := syscall.Mount(source, target, fstype, flags, data); err != nil {
		return fmt.Errorf("mount %s on %s (%s): %w", source, target, fstype, err)
	}
	return nil
}

// bind bind-mounts source at target.
func bind(source, target string) error {
	return mount(source, target, "", syscall.MS_BIND, "")
}

// mountSystem gives a root what programs inside it expect: /proc, /sys,
// /dev with its pts and a private /dev/shm (Python's multiprocessing needs it).
func mountSystem(root string) error {
	for _, m := range []struct {
		src, dst, fstype string
		flags            uintptr
		data             string
	}{
		{"proc", "proc", "proc", 0, ""},
		{"sys", "sys", "sysfs", 0, ""},
		{"/dev", "dev", "", syscall.MS_BIND, ""},
		{"/dev/pts", "dev/pts", "", syscall.MS_BIND, ""},
		{"shm", "dev/shm", "tmpfs", 0, "mode=1777"},
	} {
		if err := mount(m.src, filepath.Join(root, m.dst), m.fstype, m.flags, m.data); err != nil {
			return err
		}
	}
	return nil
}

// mountEngineRoot makes the engine's root: an overlay of the software layer
// over the build rootfs (both read only) under the state's own upper layer.
func mountEngineRoot(l layout, rootfs string) error {
	if strings.ContainsAny(rootfs+l.state+l.layers, ",:") {
		return fmt.Errorf("paths with ',' or ':' cannot be overlay layers: %s, %s, %s", rootfs, l.layer(), l.state)
	}
	opts := fmt.Sprintf("lowerdir=%s:%s,upperdir=%s,workdir=%s", l.layer(), rootfs, l.engineUpper(), l.engineWork())
	if err := mount("overlay", l.engineRoot(), "overlay", 0, opts); err != nil {
		return err
	}
	return mountSystem(l.engineRoot())
}

// mountWorkersRoot makes the workers' root (layout.workersRoot): a bind of
// the build rootfs alone (not recursive: the workspaces and Bazel's output
// root that tools/bazel binds into it stay out), read only, private (later
// mounts into the rootfs do not show up in it), with the system mounts, a
// tmpfs /tmp and the workers' directories at their own paths.
func mountWorkersRoot(l layout, rootfs string) error {
	root := l.workersRoot()
	if ok, err := isMountPoint(root); err != nil || ok {
		return err
	}
	if err := mount(rootfs, root, "", syscall.MS_BIND, ""); err != nil {
		return err
	}
	for _, flags := range []uintptr{syscall.MS_PRIVATE, syscall.MS_BIND | syscall.MS_REMOUNT | syscall.MS_RDONLY} {
		if err := syscall.Mount("", root, "", flags, ""); err != nil {
			return fmt.Errorf("remounting %s: %w", root, err)
		}
	}
	if err := mountSystem(root); err != nil {
		return err
	}
	if err := mount("tmp", filepath.Join(root, "tmp"), "tmpfs", 0, "mode=1777,size=4g"); err != nil {
		return err
	}
	return bind(l.workers(), filepath.Join(root, l.workers()))
}

// unmountTree unmounts root and everything below it, deepest first.
func unmountTree(root string) error {
	points, err := mountPoints()
	if err != nil {
		return err
	}
	var under []string
	for p := range points {
		if p == root || strings.HasPrefix(p, root+"/") {
			under = append(under, p)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(under)))
	var errs []string
	for _, p := range under {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && err != syscall.EINVAL {
			errs = append(errs, fmt.Sprintf("%s: %v", p, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("unmounting: %s", strings.Join(errs, "; "))
	}
	return nil
}
