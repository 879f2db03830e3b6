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
	cached      int   // files linked from the worker's cache
	fetched     int64 // bytes of files fetched from the CAS
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
func materialize(ctx context.Context, c *casClient, cache *fileCache, root *repb.Digest, dir string) (inputStats, error) {
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
	fetched, cached, err := writeFiles(ctx, c, cache, files)
	stats.files, stats.fetched, stats.cached = len(files), fetched, cached
	return stats, err
}

// writeFiles writes every input file: a hard link to the cache when it has
// the blob, else fetched (each distinct blob once; small ones in batches,
// large ones streamed) and then given to the cache. It returns the bytes
// fetched and the files taken from the cache.
func writeFiles(ctx context.Context, c *casClient, cache *fileCache, files []inputFile) (int64, int, error) {
	type group struct {
		digest     *repb.Digest
		executable bool
		paths      []string
	}
	groups := map[string]*group{}
	var order []*group
	for _, f := range files {
		k := cacheKey(f.digest, f.executable)
		g, ok := groups[k]
		if !ok {
			g = &group{digest: f.digest, executable: f.executable}
			groups[k] = g
			order = append(order, g)
		}
		g.paths = append(g.paths, f.path)
	}
	// The rest of a group's paths: links to the cache, else copies of the
	// first path.
	finish := func(g *group) error {
		for _, p := range g.paths[1:] {
			if cache.link(g.digest, g.executable, p) {
				continue
			}
			if err := copyFile(g.paths[0], p, fileMode(g.executable)); err != nil {
				return err
			}
		}
		return nil
	}
	cached := 0
	var small, large []*repb.Digest
	missing := map[string][]*group{} // digest key -> groups still to fetch
	for _, g := range order {
		if cache.link(g.digest, g.executable, g.paths[0]) {
			cached += len(g.paths)
			if err := finish(g); err != nil {
				return 0, cached, err
			}
			continue
		}
		dk := digestKey(g.digest)
		if _, seen := missing[dk]; !seen {
			if g.digest.SizeBytes > c.batchLimit {
				large = append(large, g.digest)
			} else {
				small = append(small, g.digest)
			}
		}
		missing[dk] = append(missing[dk], g)
	}
	place := func(g *group) error {
		if err := os.Chmod(g.paths[0], fileMode(g.executable)); err != nil {
			return err
		}
		if err := cache.add(g.digest, g.executable, g.paths[0]); err != nil {
			return fmt.Errorf("adding to the worker's cache: %w", err)
		}
		return finish(g)
	}
	var fetched int64
	err := c.readBlobs(ctx, small, func(d *repb.Digest, data []byte) error {
		fetched += int64(len(data))
		for _, g := range missing[digestKey(d)] {
			if err := os.WriteFile(g.paths[0], data, fileMode(g.executable)); err != nil {
				return err
			}
			if err := place(g); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fetched, cached, err
	}
	for _, d := range large {
		gs := missing[digestKey(d)]
		if err := c.readBlobToFile(ctx, d, gs[0].paths[0], fileMode(gs[0].executable)); err != nil {
			return fetched, cached, err
		}
		fetched += d.SizeBytes
		for i, g := range gs {
			if i > 0 { // the same bytes with another mode
				if err := copyFile(gs[0].paths[0], g.paths[0], fileMode(g.executable)); err != nil {
					return fetched, cached, err
				}
			}
			if err := place(g); err != nil {
				return fetched, cached, err
			}
		}
	}
	return fetched, cached, nil
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
