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

// provisionKey changes whenever what provisioning installs changes.
func provisionKey() string {
	sum := sha256.Sum256([]byte(packagesTxt + "\x00" + requirementsTxt))
	return hex.EncodeToString(sum[:8])
}

// provision installs, once per engine layer, PostgreSQL (apt, pinned) and
// BuildGrid (a venv, hash-locked), and adds the engine's user.
func provision(l layout) error {
	root := l.engineRoot()
	marker := l.inEngine(engineMarker)
	if b, err := os.ReadFile(marker); err == nil && strings.TrimSpace(string(b)) == provisionKey() {
		return nil
	}
	log.Printf("provisioning the engine's layer (once: about a minute): %s, BuildGrid from %d hash-locked wheels",
		strings.Join(pins(), " "), strings.Count(requirementsTxt, "--hash="))
	if err := os.MkdirAll(l.inEngine(engineVarDir), 0o755); err != nil {
		return err
	}
	// Debian's postgresql-common would make a cluster of its own; the
	// engine makes its private one.
	if err := os.MkdirAll(filepath.Dir(l.inEngine(engineAPTConf)), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(l.inEngine(engineAPTConf), []byte("create_main_cluster = false\n"), 0o644); err != nil {
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
	if err := os.RemoveAll(l.inEngine(engineVenv)); err != nil {
		return err
	}
	if _, err := runInRoot(root, nil, nil, "/usr/bin/python3", "-m", "venv", engineVenv); err != nil {
		return err
	}
	if err := os.WriteFile(l.inEngine(engineReqs), []byte(requirementsTxt), 0o644); err != nil {
		return err
	}
	if _, err := runInRoot(root, nil, env, engineVenv+"/bin/pip", "install", "--quiet",
		"--require-hashes", "--only-binary", ":all:", "-r", engineReqs); err != nil {
		return err
	}
	return os.WriteFile(marker, []byte(provisionKey()+"\n"), 0o644)
}
