package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inputTree uploads this tree to f and returns its root digest:
//
//	run.sh (executable), data/a.txt, data/same.txt (= a.txt), data/big.bin,
//	data/empty/, link -> data/a.txt
func inputTree(t *testing.T, f *fakeCAS) (root, big *repb.Digest) {
	a := f.put([]byte("a\n"))
	big = f.put(bytes.Repeat([]byte("B"), 4096))
	empty := f.putMessage(t, &repb.Directory{})
	data := f.putMessage(t, &repb.Directory{
		Files: []*repb.FileNode{
			{Name: "a.txt", Digest: a},
			{Name: "big.bin", Digest: big},
			{Name: "same.txt", Digest: a},
		},
		Directories: []*repb.DirectoryNode{{Name: "empty", Digest: empty}},
	})
	run := f.put([]byte("#!/bin/sh\necho hi\n"))
	root = f.putMessage(t, &repb.Directory{
		Files:       []*repb.FileNode{{Name: "run.sh", Digest: run, IsExecutable: true}},
		Directories: []*repb.DirectoryNode{{Name: "data", Digest: data}},
		Symlinks:    []*repb.SymlinkNode{{Name: "link", Target: "data/a.txt"}},
	})
	return root, big
}

func TestMaterializeWritesTheInputTree(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	root, _ := inputTree(t, f)
	dir := t.TempDir()

	stats, err := materialize(context.Background(), c, nil, root, dir)
	require.NoError(t, err)
	assert.Equal(t, 3, stats.directories)
	assert.Equal(t, 4, stats.files)

	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, "a\n", read("data/a.txt"))
	assert.Equal(t, "a\n", read("data/same.txt"))
	assert.Len(t, read("data/big.bin"), 4096)
	assert.Equal(t, "a\n", read("link"))
	target, err := os.Readlink(filepath.Join(dir, "link"))
	require.NoError(t, err)
	assert.Equal(t, "data/a.txt", target)
	assert.DirExists(t, filepath.Join(dir, "data/empty"))

	info, err := os.Stat(filepath.Join(dir, "run.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm())
	info, err = os.Stat(filepath.Join(dir, "data/a.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
}

func TestMaterializeRefusesACorruptFile(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	root, big := inputTree(t, f)
	f.corrupt(big) // streamed through ByteStream (4096 > 1000)
	dir := t.TempDir()
	_, err := materialize(context.Background(), c, nil, root, dir)
	require.Error(t, err)
	assert.True(t, isCorrupt(err), "got %v", err)
	assert.NoFileExists(t, filepath.Join(dir, "data/big.bin"))
}

func TestMaterializeRefusesACorruptDirectory(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	root, _ := inputTree(t, f)
	f.corrupt(root)
	dir := t.TempDir()
	_, err := materialize(context.Background(), c, nil, root, dir)
	assert.True(t, isCorrupt(err), "got %v", err)
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries, "nothing of a corrupt tree is written")
}

func TestMaterializeRejectsNamesThatLeaveTheTree(t *testing.T) {
	for _, name := range []string{"..", ".", "a/b", ""} {
		f, c := newTestCAS(t, 1000)
		file := f.put([]byte("x"))
		root := f.putMessage(t, &repb.Directory{Files: []*repb.FileNode{{Name: name, Digest: file}}})
		_, err := materialize(context.Background(), c, nil, root, t.TempDir())
		assert.ErrorContains(t, err, "invalid name", "name %q", name)
	}
	f, c := newTestCAS(t, 1000)
	file := f.put([]byte("x"))
	root := f.putMessage(t, &repb.Directory{
		Files:    []*repb.FileNode{{Name: "x", Digest: file}},
		Symlinks: []*repb.SymlinkNode{{Name: "x", Target: "y"}},
	})
	_, err := materialize(context.Background(), c, nil, root, t.TempDir())
	assert.ErrorContains(t, err, "appears twice")
}
