package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// runStdlib compiles the standard library with `go list -export` in a private
// build cache and copies each package's archive to DIR/<importpath>.a. The
// archives are built with -trimpath, so they are the same in every output base.
func runStdlib(args []string) error {
	var sf sdkFlags
	fs := sf.flagSet("stdlib")
	out := fs.String("o", "", "output directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := newSDK(sf.goroot)
	if err != nil {
		return err
	}
	defer s.close()
	listArgs := []string{"list", "-e", "-export", "-trimpath", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}
	listArgs = append(listArgs, sf.instrumentFlags()...)
	listArgs = append(listArgs, "std")
	cmd := exec.Command(filepath.Join(s.goroot, "bin", "go"), listArgs...)
	cmd.Dir = s.tmp
	cmd.Env = s.env("GO111MODULE=on")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go list -export std: %v\n%s", err, stderr.String())
	}
	dir := abs(s.root, *out)
	n := 0
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		ip, export, ok := strings.Cut(sc.Text(), "=")
		if !ok || strings.HasPrefix(ip, "cmd/") {
			continue
		}
		data, err := os.ReadFile(export)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(ip)+".a")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		n++
	}
	if n < 100 {
		return fmt.Errorf("go list -export std gave only %d archives\n%s", n, stderr.String())
	}
	return nil
}
