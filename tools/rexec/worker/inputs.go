package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
)

// inputFile is one file of the input root, to be written at path.
type inputFile struct {
	path       string
	digest     *repb.Digest
	executable bool
}

// inputStats says what materialize wrote.
type inputStats struct {
	directories int
	files       int
	bytes       int64
}

// checkName rejects a directory entry's name that would leave its directory
// or collide with the tree's own structure.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("invalid name %q in an input directory", name)
	}
	return nil
}

// materialize writes the input tree rooted at root into dir, which must
// exist and be empty. Directories are read a level at a time, files in
// batches; every blob is verified before it is used.
func materialize(ctx context.Context, c *casClient, root *repb.Digest, dir string) (inputStats, error) {
	var stats inputStats
	type pendingDir struct {
		digest *repb.Digest
		path   string
	}
	level := []pendingDir{{root, dir}}
	var files []inputFile
	for len(level) > 0 {
		digests := make([]*repb.Digest, len(level))
		for i, p := range level {
			digests[i] = p.digest
		}
		contents := map[string][]byte{}
		err := c.readBlobs(ctx, digests, func(d *repb.Digest, data []byte) error {
			contents[digestKey(d)] = data
			return nil
		})
		if err != nil {
			return stats, err
		}
		var next []pendingDir
		for _, p := range level {
			var d repb.Directory
			if err := proto.Unmarshal(contents[digestKey(p.digest)], &d); err != nil {
				return stats, fmt.Errorf("input directory %s: %w", digestString(p.digest), err)
			}
			stats.directories++
			names := map[string]bool{}
			claim := func(name string) error {
				if err := checkName(name); err != nil {
					return err
				}
				if names[name] {
					return fmt.Errorf("name %q appears twice in input directory %s", name, digestString(p.digest))
				}
				names[name] = true
				return nil
			}
			for _, f := range d.Files {
				if err := claim(f.Name); err != nil {
					return stats, err
				}
				if err := checkDigest(f.Digest); err != nil {
					return stats, fmt.Errorf("input file %q: %w", f.Name, err)
				}
				files = append(files, inputFile{filepath.Join(p.path, f.Name), f.Digest, f.IsExecutable})
			}
			for _, sub := range d.Directories {
				if err := claim(sub.Name); err != nil {
					return stats, err
				}
				if err := checkDigest(sub.Digest); err != nil {
					return stats, fmt.Errorf("input directory %q: %w", sub.Name, err)
				}
				path := filepath.Join(p.path, sub.Name)
				if err := os.Mkdir(path, 0o755); err != nil {
					return stats, err
				}
				next = append(next, pendingDir{sub.Digest, path})
			}
			for _, s := range d.Symlinks {
				if err := claim(s.Name); err != nil {
					return stats, err
				}
				if s.Target == "" {
					return stats, fmt.Errorf("input symlink %q has no target", s.Name)
				}
				if err := os.Symlink(s.Target, filepath.Join(p.path, s.Name)); err != nil {
					return stats, err
				}
			}
		}
		level = next
	}
	n, err := writeFiles(ctx, c, files)
	stats.files = len(files)
	stats.bytes = n
	return stats, err
}

// writeFiles fetches each distinct blob once and writes it at every path that
// holds it; it returns the bytes fetched.
func writeFiles(ctx context.Context, c *casClient, files []inputFile) (int64, error) {
	byDigest := map[string][]inputFile{}
	var small, large []*repb.Digest
	for _, f := range files {
		k := digestKey(f.digest)
		if _, seen := byDigest[k]; !seen {
			if f.digest.SizeBytes > c.batchLimit {
				large = append(large, f.digest)
			} else {
				small = append(small, f.digest)
			}
		}
		byDigest[k] = append(byDigest[k], f)
	}
	var fetched int64
	err := c.readBlobs(ctx, small, func(d *repb.Digest, data []byte) error {
		fetched += int64(len(data))
		for _, f := range byDigest[digestKey(d)] {
			if err := os.WriteFile(f.path, data, fileMode(f.executable)); err != nil {
				return err
			}
			// WriteFile's mode is cut by the umask; inputs keep theirs.
			if err := os.Chmod(f.path, fileMode(f.executable)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fetched, err
	}
	for _, d := range large {
		same := byDigest[digestKey(d)]
		if err := c.readBlobToFile(ctx, d, same[0].path, fileMode(same[0].executable)); err != nil {
			return fetched, err
		}
		fetched += d.SizeBytes
		if err := os.Chmod(same[0].path, fileMode(same[0].executable)); err != nil {
			return fetched, err
		}
		for _, f := range same[1:] {
			if err := copyFile(same[0].path, f.path, fileMode(f.executable)); err != nil {
				return fetched, err
			}
		}
	}
	return fetched, nil
}

func fileMode(executable bool) os.FileMode {
	if executable {
		return 0o755
	}
	return 0o644
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}
