package main

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
)

//go:embed packages.txt
var packagesTxt string

//go:embed requirements.txt
var requirementsTxt string

// pins are the package=version lines of packages.txt.
func pins() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(packagesTxt))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// provisionKey changes whenever what provisioning installs changes (not
// when a comment does).
func provisionKey() string {
	sum := sha256.Sum256([]byte(withoutComments(packagesTxt) + "\x00" + withoutComments(requirementsTxt)))
	return hex.EncodeToString(sum[:8])
}

func withoutComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			b.WriteString(t + "\n")
		}
	}
	return b.String()
}

// provision installs into root (an overlay whose upper layer becomes the
// software layer) PostgreSQL (apt, pinned) and BuildGrid (a venv,
// hash-locked), and adds the engine's user.
func provision(root string) error {
	in := func(p string) string { return filepath.Join(root, p) }
	log.Printf("provisioning the engine's layer (once: about a minute): %s, BuildGrid from %d hash-locked wheels",
		strings.Join(pins(), " "), strings.Count(requirementsTxt, "--hash="))
	if err := os.MkdirAll(in(engineVarDir), 0o755); err != nil {
		return err
	}
	// Debian's postgresql-common would make a cluster of its own; the
	// engine makes its private one.
	if err := os.MkdirAll(filepath.Dir(in(engineAPTConf)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(in(engineAPTConf), []byte("create_main_cluster = false\n"), 0o644); err != nil {
		return err
	}
	apt := []string{"/usr/bin/apt-get", "-q", "-y", "-o", "Acquire::Check-Valid-Until=false",
		"-o", "APT::Install-Recommends=false", "-o", "Dpkg::Options::=--force-confold"}
	env := append(passedEnv(), "DEBIAN_FRONTEND=noninteractive")
	install := append(append([]string{}, apt...), append([]string{"install"}, pins()...)...)
	if _, err := runInRoot(root, nil, env, install...); err != nil {
		// The package lists may predate the pins: read them again, once.
		if _, uerr := runInRoot(root, nil, env, append(append([]string{}, apt...), "update")...); uerr != nil {
			return fmt.Errorf("apt-get update in the engine's root: %w", uerr)
		}
		if _, err := runInRoot(root, nil, env, install...); err != nil {
			out, _ := runInRoot(root, nil, env, "/usr/bin/apt-cache", "madison", strings.Split(pins()[0], "=")[0])
			return fmt.Errorf("installing %s (bump tools/rexec/engine/packages.txt to what the mirror has:\n%s): %w",
				strings.Join(pins(), " "), out, err)
		}
	}
	runInRoot(root, nil, env, "/usr/bin/apt-get", "clean")
	if _, err := lookupUser(root, engineUser); err != nil {
		if _, err := runInRoot(root, nil, nil, "/usr/sbin/useradd", "--system", "--home-dir", engineVarDir,
			"--no-create-home", "--shell", "/usr/sbin/nologin", engineUser); err != nil {
			return err
		}
	}
	if out, err := runInRoot(root, nil, nil, "/usr/bin/python3", "-c",
		"import sys; print(sys.version.split()[0]); sys.exit(sys.version_info < (3, 13))"); err != nil {
		return fmt.Errorf("BuildGrid 0.9.1 needs Python >= 3.13; the rootfs has %s", strings.TrimSpace(string(out)))
	}
	if err := os.RemoveAll(in(engineVenv)); err != nil {
		return err
	}
	if _, err := runInRoot(root, nil, nil, "/usr/bin/python3", "-m", "venv", engineVenv); err != nil {
		return err
	}
	if err := os.WriteFile(in(engineReqs), []byte(requirementsTxt), 0o644); err != nil {
		return err
	}
	if _, err := runInRoot(root, nil, env, engineVenv+"/bin/pip", "install", "--quiet",
		"--require-hashes", "--only-binary", ":all:", "-r", engineReqs); err != nil {
		return err
	}
	return os.WriteFile(in(engineMarker), []byte(provisionKey()+"\n"), 0o644)
}

// ensureLayer makes the software layer for this rootfs and these pins once:
// provisioning runs in an overlay of the rootfs whose upper layer, once
// complete, is renamed into place. Every engine (each state directory) then
// stacks it, read only, over the rootfs, under its own data layer.
func ensureLayer(l layout, rootfs string) error {
	final := l.layer()
	if _, err := os.Stat(filepath.Join(final, engineMarker)); err == nil {
		return nil
	}
	if err := os.MkdirAll(l.layers, 0o755); err != nil {
		return err
	}
	unlock, err := flockWait(filepath.Join(l.layers, "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(final, engineMarker)); err == nil {
		return nil // another up made it meanwhile
	}
	partial := final + ".partial"
	root := filepath.Join(partial, "root")
	if err := unmountTree(root); err != nil {
		return err
	}
	if err := os.RemoveAll(partial); err != nil {
		return err
	}
	for _, d := range []string{"upper", "work", "root"} {
		if err := os.MkdirAll(filepath.Join(partial, d), 0o755); err != nil {
			return err
		}
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", rootfs, filepath.Join(partial, "upper"), filepath.Join(partial, "work"))
	if err := mount("overlay", root, "overlay", 0, opts); err != nil {
		return err
	}
	err = mountSystem(root)
	if err == nil {
		err = provision(root)
	}
	if uerr := unmountTree(root); err == nil {
		err = uerr
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(final); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(partial, "upper"), final); err != nil {
		return err
	}
	return os.RemoveAll(partial)
}
