package main

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyIsCreatedOnceAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jwt.key")
	k1, err := loadOrCreateKey(path)
	require.NoError(t, err)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the private key is root's alone")
	k2, err := loadOrCreateKey(path)
	require.NoError(t, err)
	assert.True(t, k1.Equal(k2))

	require.NoError(t, os.WriteFile(path, []byte("not a key"), 0o600))
	_, err = loadOrCreateKey(path)
	assert.ErrorContains(t, err, "no PEM private key")
}

// The token is a JWT whose RS256 signature verifies with the public key the
// engine is given, with the claims BuildGrid checks.
func TestMintTokenVerifiesWithThePublicKey(t *testing.T) {
	key, err := loadOrCreateKey(filepath.Join(t.TempDir(), "jwt.key"))
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	tok, err := mintToken(key, subjectWorker, time.Hour, now)
	require.NoError(t, err)

	parts := strings.Split(tok, ".")
	require.Len(t, parts, 3)
	pubPEM, err := publicKeyPEM(key)
	require.NoError(t, err)
	block, _ := pem.Decode(pubPEM)
	require.NotNil(t, block)
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	sig, err := b64.DecodeString(parts[2])
	require.NoError(t, err)
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	require.NoError(t, rsa.VerifyPKCS1v15(parsed.(*rsa.PublicKey), crypto.SHA256, digest[:], sig))

	var header, claims map[string]any
	raw, _ := b64.DecodeString(parts[0])
	require.NoError(t, json.Unmarshal(raw, &header))
	raw, _ = b64.DecodeString(parts[1])
	require.NoError(t, json.Unmarshal(raw, &claims))
	assert.Equal(t, "RS256", header["alg"])
	assert.Equal(t, "worker", claims["sub"])
	assert.Equal(t, audience, claims["aud"])
	assert.EqualValues(t, now.Add(time.Hour).Unix(), claims["exp"])

	// Another key's signature does not verify.
	other, err := loadOrCreateKey(filepath.Join(t.TempDir(), "other.key"))
	require.NoError(t, err)
	assert.Error(t, rsa.VerifyPKCS1v15(&other.PublicKey, crypto.SHA256, digest[:], sig))
}
