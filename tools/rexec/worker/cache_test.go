package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The second action with the same inputs fetches nothing: its files are
// hard links to the first one's, kept in the worker's cache.
func TestMaterializeTakesCachedFilesWithoutFetching(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	root, big := inputTree(t, f)
	cache, err := openFileCache(filepath.Join(t.TempDir(), "cache"), 1<<20)
	require.NoError(t, err)

	first, err := materialize(context.Background(), c, cache, root, t.TempDir())
	require.NoError(t, err)
	assert.Zero(t, first.cached)
	assert.Positive(t, first.fetched)
	readsOfBig := f.reads[digestKey(big)]

	dir := t.TempDir()
	second, err := materialize(context.Background(), c, cache, root, dir)
	require.NoError(t, err)
	assert.Equal(t, 4, second.cached, "every file from the cache")
	assert.Zero(t, second.fetched)
	assert.Equal(t, readsOfBig, f.reads[digestKey(big)], "the large blob was not read again")
	data, err := os.ReadFile(filepath.Join(dir, "data/big.bin"))
	require.NoError(t, err)
	assert.Len(t, data, 4096)
	info, err := os.Stat(filepath.Join(dir, "run.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm(), "an executable stays executable")
}

// An entry an action wrote through its link is dropped, not handed out.
func TestCacheDropsAnEntryThatChanged(t *testing.T) {
	dir := t.TempDir()
	cache, err := openFileCache(filepath.Join(dir, "cache"), 1<<20)
	require.NoError(t, err)
	src := filepath.Join(dir, "src")
	require.NoError(t, os.WriteFile(src, []byte("original"), 0o644))
	d := digestOf([]byte("original"))
	require.NoError(t, cache.add(d, false, src))

	// An action writes into its input (the same inode as the entry).
	time.Sleep(10 * time.Millisecond)
	require.NoError(t, os.WriteFile(src, []byte("tampered"), 0o644))
	assert.False(t, cache.link(d, false, filepath.Join(dir, "dst")))
	assert.NoFileExists(t, filepath.Join(dir, "dst"))
	assert.False(t, cache.link(d, false, filepath.Join(dir, "dst")), "and it stays gone")
}

func TestCacheEvictsTheLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	cache, err := openFileCache(filepath.Join(dir, "cache"), 25)
	require.NoError(t, err)
	put := func(content string) {
		p := filepath.Join(dir, content)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		require.NoError(t, cache.add(digestOf([]byte(content)), false, p))
	}
	put("aaaaaaaaaa") // 10 bytes each
	put("bbbbbbbbbb")
	require.True(t, cache.link(digestOf([]byte("aaaaaaaaaa")), false, filepath.Join(dir, "use-a")))
	put("cccccccccc") // 30 > 25: b, the least recently used, goes
	assert.False(t, cache.link(digestOf([]byte("bbbbbbbbbb")), false, filepath.Join(dir, "b2")))
	assert.True(t, cache.link(digestOf([]byte("aaaaaaaaaa")), false, filepath.Join(dir, "a2")))
	assert.True(t, cache.link(digestOf([]byte("cccccccccc")), false, filepath.Join(dir, "c2")))
	assert.EqualValues(t, 20, cache.size)

	// A worker started again finds what is there.
	again, err := openFileCache(filepath.Join(dir, "cache"), 25)
	require.NoError(t, err)
	assert.True(t, again.link(digestOf([]byte("cccccccccc")), false, filepath.Join(dir, "c3")))
	assert.EqualValues(t, 20, again.size)
}

func TestACorruptBlobNeverEntersTheCache(t *testing.T) {
	f, c := newTestCAS(t, 1000)
	root, big := inputTree(t, f)
	cache, err := openFileCache(filepath.Join(t.TempDir(), "cache"), 1<<20)
	require.NoError(t, err)
	f.corrupt(big)
	_, err = materialize(context.Background(), c, cache, root, t.TempDir())
	require.True(t, isCorrupt(err), "got %v", err)
	assert.False(t, cache.link(big, false, filepath.Join(t.TempDir(), "x")))
}
