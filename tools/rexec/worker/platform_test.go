package main

import (
	"os"
	"path/filepath"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testHash = "896046f8babe"

func props(kv ...string) *repb.Platform {
	p := &repb.Platform{}
	for i := 0; i < len(kv); i += 2 {
		p.Properties = append(p.Properties, &repb.Platform_Property{Name: kv[i], Value: kv[i+1]})
	}
	return p
}

func TestPlatformAdvertisesGPUCounts(t *testing.T) {
	p, err := newPlatform(testHash, 2)
	require.NoError(t, err)
	var got []string
	for _, prop := range p.properties() {
		got = append(got, prop.Key+"="+prop.Value)
	}
	assert.Equal(t, []string{"OSFamily=Linux", "cubridge-rootfs=" + testHash, "gpu=1", "gpu=2"}, got)

	cpu, err := newPlatform(testHash, 0)
	require.NoError(t, err)
	assert.Len(t, cpu.properties(), 2, "no gpu property without GPUs")
}

func TestPlatformCheck(t *testing.T) {
	gpu, _ := newPlatform(testHash, 1)
	cpu, _ := newPlatform(testHash, 0)
	assert.NoError(t, cpu.check(nil))
	assert.NoError(t, cpu.check(props("OSFamily", "Linux", "cubridge-rootfs", testHash)))
	assert.NoError(t, gpu.check(props("OSFamily", "Linux", "gpu", "1")))

	assert.ErrorContains(t, cpu.check(props("gpu", "1")), "gpu=1 (this worker has 0)")
	assert.ErrorContains(t, gpu.check(props("gpu", "2")), "gpu=2 (this worker has 1)")
	assert.ErrorContains(t, cpu.check(props("cubridge-rootfs", "0123456789ab")), "this worker: "+testHash)
	assert.ErrorContains(t, cpu.check(props("OSFamily", "Windows")), "OSFamily=Windows")
	assert.ErrorContains(t, cpu.check(props("container-image", "docker://x")), "unknown")
	assert.ErrorContains(t, gpu.check(props("gpu", "lots")), "not a count")
}

func TestReadRootfsHash(t *testing.T) {
	root := t.TempDir()
	_, err := readRootfsHash(root)
	assert.ErrorContains(t, err, "run tools/bazel once")

	require.NoError(t, os.MkdirAll(filepath.Join(root, "etc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, rootfsHashFile), []byte(testHash+"\n"), 0o644))
	h, err := readRootfsHash(root)
	require.NoError(t, err)
	assert.Equal(t, testHash, h)

	require.NoError(t, os.WriteFile(filepath.Join(root, rootfsHashFile), []byte("../../x\n"), 0o644))
	_, err = readRootfsHash(root)
	assert.ErrorContains(t, err, "not a package hash")
}
