package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// readRootfsHash reads the package hash tools/bazel records in the rootfs.
func readRootfsHash(rootfs string) (string, error) {
	path := filepath.Join(rootfs, "etc/cubridge-rootfs-hash")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("the build rootfs has no package hash (%w); run tools/bazel once", err)
	}
	h := strings.TrimSpace(string(b))
	if !regexp.MustCompile(`^[0-9a-f]{12,64}$`).MatchString(h) {
		return "", fmt.Errorf("%s holds %q, not a package hash", path, h)
	}
	return h, nil
}
