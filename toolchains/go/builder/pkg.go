package main

import (
	"errors"
	"fmt"
	"go/build"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// loadPackage reads the sources of one Bazel target as go/build would read a
// directory that held only them: build constraints (GOOS, GOARCH, cgo, race,
// asan) select the files, and it sorts them into library, internal test and
// external test files, with their #cgo directives.
func loadPackage(s *sdk, srcs []string, tags []string) (*build.Package, string, error) {
	if len(srcs) == 0 {
		return nil, "", errors.New("no sources")
	}
	byName := map[string]string{}
	dir := filepath.Dir(srcs[0])
	for _, src := range srcs {
		base := filepath.Base(src)
		if prev, dup := byName[base]; dup {
			return nil, "", fmt.Errorf("two sources named %s: %s and %s", base, prev, src)
		}
		byName[base] = src
	}
	ctx := build.Default
	ctx.GOROOT = s.goroot
	ctx.GOPATH = ""
	ctx.CgoEnabled = true
	ctx.BuildTags = tags
	ctx.IsDir = func(p string) bool { return p == dir }
	ctx.HasSubdir = func(root, p string) (string, bool) { return "", false }
	ctx.ReadDir = func(d string) ([]fs.FileInfo, error) {
		// Sorted, as os.ReadDir: the order of the files decides the order
		// of the export data, which must be the same on every compile.
		names := make([]string, 0, len(byName))
		for name := range byName {
			names = append(names, name)
		}
		sort.Strings(names)
		var infos []fs.FileInfo
		for _, name := range names {
			info, err := os.Stat(abs(s.root, byName[name]))
			if err != nil {
				return nil, err
			}
			infos = append(infos, namedInfo{info, name})
		}
		return infos, nil
	}
	ctx.OpenFile = func(p string) (io.ReadCloser, error) {
		src, ok := byName[filepath.Base(p)]
		if !ok {
			return nil, fmt.Errorf("%s is not a source of this target", p)
		}
		return os.Open(abs(s.root, src))
	}
	pkg, err := ctx.ImportDir(dir, build.ImportComment)
	var noGo *build.NoGoError
	if err != nil && !errors.As(err, &noGo) {
		return nil, "", err
	}
	return pkg, dir, nil
}

// namedInfo is a FileInfo under the name of the source (not of a symlink's target).
type namedInfo struct {
	fs.FileInfo
	name string
}

func (n namedInfo) Name() string { return n.name }
