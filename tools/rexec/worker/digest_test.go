package main

import (
	"bytes"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDigestOfIsSHA256AndSize(t *testing.T) {
	d := digestOf([]byte("hello"))
	assert.Equal(t, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", d.Hash)
	assert.EqualValues(t, 5, d.SizeBytes)
	assert.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", digestOf(nil).Hash)
}

func TestVerifyBlobRejectsOtherBytes(t *testing.T) {
	d := digestOf([]byte("hello"))
	require.NoError(t, verifyBlob(d, []byte("hello")))

	err := verifyBlob(d, []byte("hellO"))
	require.Error(t, err)
	assert.True(t, isCorrupt(err))
	assert.Contains(t, err.Error(), d.Hash)

	// Same hash, another size: corrupt too.
	err = verifyBlob(&repb.Digest{Hash: d.Hash, SizeBytes: 6}, []byte("hello"))
	assert.True(t, isCorrupt(err))
}

func TestCheckDigestRejectsWhatCannotBeAHash(t *testing.T) {
	good := digestOf([]byte("x"))
	require.NoError(t, checkDigest(good))
	for name, d := range map[string]*repb.Digest{
		"nil":        nil,
		"short":      {Hash: "abc", SizeBytes: 1},
		"upper case": {Hash: "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824", SizeBytes: 5},
		"path":       {Hash: "../../../../../../../../../../../../../../../../../../../../etc/pa", SizeBytes: 1},
		"negative":   {Hash: good.Hash, SizeBytes: -1},
	} {
		assert.Error(t, checkDigest(d), name)
	}
}

func TestHashingWriterVerifiesWhatPassedThrough(t *testing.T) {
	var buf bytes.Buffer
	hw := newHashingWriter(&buf)
	hw.Write([]byte("hel"))
	hw.Write([]byte("lo"))
	assert.Equal(t, "hello", buf.String())
	require.NoError(t, hw.verify(digestOf([]byte("hello"))))
	assert.True(t, isCorrupt(hw.verify(digestOf([]byte("hello!")))))
}
