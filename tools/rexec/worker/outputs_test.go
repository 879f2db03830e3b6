package main

import (
	"os"
	"path/filepath"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), mode))
	require.NoError(t, os.Chmod(path, mode))
}

// blobOf finds the bytes a collected blob stands for.
func blobOf(t *testing.T, c *collectedOutputs, d *repb.Digest) []byte {
	for _, b := range c.blobs {
		if digestKey(b.digest) == digestKey(d) {
			if b.data != nil {
				return b.data
			}
			data, err := os.ReadFile(b.path)
			require.NoError(t, err)
			return data
		}
	}
	t.Fatalf("no blob for %s", digestString(d))
	return nil
}

func TestCollectOutputsFilesDirectoriesSymlinks(t *testing.T) {
	dir := t.TempDir()
	spec := outputSpec{paths: []string{"out/bin", "out/tree", "out/link", "out/not-written"}, usePaths: true}
	require.NoError(t, prepareOutputs(dir, spec))
	assert.DirExists(t, filepath.Join(dir, "out"), "parents of outputs exist before the run")

	writeFile(t, filepath.Join(dir, "out/bin"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(dir, "out/tree/b.txt"), "b", 0o644)
	writeFile(t, filepath.Join(dir, "out/tree/a/x.txt"), "x", 0o644)
	writeFile(t, filepath.Join(dir, "out/tree/c/x.txt"), "x", 0o644) // same content as a/: one child
	require.NoError(t, os.Symlink("bin", filepath.Join(dir, "out/link")))

	c, err := collectOutputs(dir, spec)
	require.NoError(t, err)
	r := c.result
	require.Len(t, r.OutputFiles, 1)
	assert.Equal(t, "out/bin", r.OutputFiles[0].Path)
	assert.True(t, r.OutputFiles[0].IsExecutable)
	assert.Equal(t, "#!/bin/sh\n", string(blobOf(t, c, r.OutputFiles[0].Digest)))

	require.Len(t, r.OutputSymlinks, 1)
	assert.Equal(t, "bin", r.OutputSymlinks[0].Target)
	assert.Empty(t, r.OutputFileSymlinks, "an REAPI 2.1 client gets output_symlinks only")

	require.Len(t, r.OutputDirectories, 1)
	tree := &repb.Tree{}
	require.NoError(t, proto.Unmarshal(blobOf(t, c, r.OutputDirectories[0].TreeDigest), tree))
	require.Len(t, tree.Root.Directories, 2)
	assert.Equal(t, "a", tree.Root.Directories[0].Name, "entries sorted by name")
	assert.Equal(t, "c", tree.Root.Directories[1].Name)
	assert.Equal(t, tree.Root.Directories[0].Digest.Hash, tree.Root.Directories[1].Digest.Hash)
	assert.Len(t, tree.Children, 1, "identical subdirectories appear once")
	require.Len(t, tree.Root.Files, 1)
	assert.Equal(t, "b", string(blobOf(t, c, tree.Root.Files[0].Digest)))
	child, err := proto.MarshalOptions{Deterministic: true}.Marshal(tree.Children[0])
	require.NoError(t, err)
	assert.Equal(t, digestOf(child).Hash, tree.Root.Directories[0].Digest.Hash)
}

func TestCollectOutputsOldAPIFilesSymlinksByKind(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "f"), "f", 0o644)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	require.NoError(t, os.Symlink("f", filepath.Join(dir, "lf")))
	require.NoError(t, os.Symlink("d", filepath.Join(dir, "ld")))
	c, err := collectOutputs(dir, outputSpec{files: []string{"f", "lf"}, directories: []string{"ld"}})
	require.NoError(t, err)
	require.Len(t, c.result.OutputFileSymlinks, 1)
	require.Len(t, c.result.OutputDirectorySymlinks, 1)
	assert.Empty(t, c.result.OutputSymlinks)
}

func TestCollectOutputsRefusesWrongKinds(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	writeFile(t, filepath.Join(dir, "f"), "f", 0o644)
	_, err := collectOutputs(dir, outputSpec{files: []string{"d"}})
	assert.ErrorContains(t, err, "is a directory")
	_, err = collectOutputs(dir, outputSpec{directories: []string{"f"}})
	assert.ErrorContains(t, err, "is a file")
}

func TestPrepareOutputsRejectsPathsOutsideTheWorkingDirectory(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", "a/../../x"} {
		assert.Error(t, prepareOutputs(t.TempDir(), outputSpec{paths: []string{p}}), p)
	}
}
