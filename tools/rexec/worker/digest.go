package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
)

// The engine and Bazel are configured for SHA-256, REAPI's default function.

// errCorruptBlob marks a blob whose bytes do not hash to the digest it was
// read under: the worker never uses such a blob.
var errCorruptBlob = errors.New("corrupt blob")

// corruptBlobError says which blob was corrupt and what it hashed to.
type corruptBlobError struct {
	want    *repb.Digest
	gotHash string
	gotSize int64
}

func (e *corruptBlobError) Error() string {
	return fmt.Sprintf("corrupt blob %s: its bytes are %d long with sha256 %s",
		digestString(e.want), e.gotSize, e.gotHash)
}

func (e *corruptBlobError) Unwrap() error { return errCorruptBlob }

// digestOf is the REAPI digest of data.
func digestOf(data []byte) *repb.Digest {
	sum := sha256.Sum256(data)
	return &repb.Digest{Hash: hex.EncodeToString(sum[:]), SizeBytes: int64(len(data))}
}

// digestString is the "hash/size" form used in logs and resource names.
func digestString(d *repb.Digest) string {
	return fmt.Sprintf("%s/%d", d.GetHash(), d.GetSizeBytes())
}

// checkDigest rejects a digest that cannot name a SHA-256 blob, before it
// reaches a resource name or a path.
func checkDigest(d *repb.Digest) error {
	if d == nil {
		return errors.New("missing digest")
	}
	if len(d.Hash) != sha256.Size*2 {
		return fmt.Errorf("digest %q: hash is not %d hex digits", digestString(d), sha256.Size*2)
	}
	for _, c := range d.Hash {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("digest %q: hash is not lower-case hex", digestString(d))
		}
	}
	if d.SizeBytes < 0 {
		return fmt.Errorf("digest %q: negative size", digestString(d))
	}
	return nil
}

// verifyBlob checks that data is the blob want names.
func verifyBlob(want *repb.Digest, data []byte) error {
	got := digestOf(data)
	if got.Hash != want.GetHash() || got.SizeBytes != want.GetSizeBytes() {
		return &corruptBlobError{want: want, gotHash: got.Hash, gotSize: got.SizeBytes}
	}
	return nil
}

// hashingWriter hashes what passes through it, for blobs streamed to disk.
type hashingWriter struct {
	w    io.Writer
	h    hash.Hash
	size int64
}

func newHashingWriter(w io.Writer) *hashingWriter {
	return &hashingWriter{w: w, h: sha256.New()}
}

func (hw *hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.size += int64(n)
	return n, err
}

// digest is the digest of what was written.
func (hw *hashingWriter) digest() *repb.Digest {
	return &repb.Digest{Hash: hex.EncodeToString(hw.h.Sum(nil)), SizeBytes: hw.size}
}

// verify checks that what was written is the blob want names.
func (hw *hashingWriter) verify(want *repb.Digest) error {
	got := hw.digest()
	if got.Hash != want.GetHash() || got.SizeBytes != want.GetSizeBytes() {
		return &corruptBlobError{want: want, gotHash: got.Hash, gotSize: got.SizeBytes}
	}
	return nil
}
