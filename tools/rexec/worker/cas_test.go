package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func collect(t *testing.T, c *casClient, digests ...*repb.Digest) (map[string][]byte, error) {
	got := map[string][]byte{}
	err := c.readBlobs(context.Background(), digests, func(d *repb.Digest, b []byte) error {
		got[digestKey(d)] = b
		return nil
	})
	return got, err
}

func TestReadBlobsBatchesSmallAndStreamsLarge(t *testing.T) {
	f, c := newTestCAS(t, 100)
	small := f.put([]byte("small blob"))
	large := f.put(bytes.Repeat([]byte("0123456789"), 500)) // 5000 bytes > 100: ByteStream
	empty := digestOf(nil)                                  // never asked of the server

	got, err := collect(t, c, small, large, empty, small)
	require.NoError(t, err)
	assert.Equal(t, "small blob", string(got[digestKey(small)]))
	assert.Len(t, got[digestKey(large)], 5000)
	assert.Empty(t, got[digestKey(empty)])
	assert.Equal(t, 1, f.reads[digestKey(small)], "a blob asked for twice is read once")
}

func TestReadBlobsDetectsCorruptBlobs(t *testing.T) {
	for name, size := range map[string]int{"batch": 10, "bytestream": 5000} {
		t.Run(name, func(t *testing.T) {
			f, c := newTestCAS(t, 100)
			d := f.put(bytes.Repeat([]byte("x"), size))
			f.corrupt(d)
			used := false
			err := c.readBlobs(context.Background(), []*repb.Digest{d}, func(*repb.Digest, []byte) error {
				used = true
				return nil
			})
			require.Error(t, err)
			assert.True(t, isCorrupt(err), "got %v", err)
			assert.False(t, used, "a corrupt blob never reaches the caller")
		})
	}
}

func TestReadBlobsReportsMissingBlobs(t *testing.T) {
	_, c := newTestCAS(t, 100)
	for _, size := range []int{10, 5000} {
		d := digestOf(bytes.Repeat([]byte("y"), size))
		_, err := collect(t, c, d)
		var missing *missingBlobError
		require.True(t, errors.As(err, &missing), "size %d: got %v", size, err)
		assert.Equal(t, d.Hash, missing.digest.Hash)
	}
}

func TestReadBlobToFileLeavesNothingOfACorruptBlob(t *testing.T) {
	f, c := newTestCAS(t, 100)
	d := f.put(bytes.Repeat([]byte("z"), 3000))
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, c.readBlobToFile(context.Background(), d, path, 0o644))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Len(t, data, 3000)

	f.corrupt(d)
	bad := filepath.Join(t.TempDir(), "bad")
	err = c.readBlobToFile(context.Background(), d, bad, 0o644)
	assert.True(t, isCorrupt(err), "got %v", err)
	assert.NoFileExists(t, bad)
}

func TestUploadSendsOnlyMissingBlobs(t *testing.T) {
	f, c := newTestCAS(t, 100)
	present := f.put([]byte("already there"))
	small := []byte("new small blob")
	largePath := filepath.Join(t.TempDir(), "large")
	large := bytes.Repeat([]byte("L"), 4321)
	require.NoError(t, os.WriteFile(largePath, large, 0o644))

	require.NoError(t, c.upload(context.Background(), []uploadBlob{
		{digest: present, data: []byte("already there")},
		{digest: digestOf(small), data: small},
		{digest: digestOf(large), path: largePath},
		{digest: digestOf(nil), data: nil},
	}))
	got, err := collect(t, c, digestOf(small), digestOf(large))
	require.NoError(t, err)
	assert.Equal(t, small, got[digestKey(digestOf(small))])
	assert.Equal(t, large, got[digestKey(digestOf(large))])
}
