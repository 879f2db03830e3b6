package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenamedWheel(t *testing.T) {
	name, err := renamedWheel("cubridge_cu13-0.1.0-cp311-abi3-linux_x86_64.whl", "manylinux_2_35_x86_64")
	require.NoError(t, err)
	assert.Equal(t, "cubridge_cu13-0.1.0-cp311-abi3-manylinux_2_35_x86_64.whl", name)
	_, err = renamedWheel("not-a-wheel.zip", "any")
	assert.ErrorContains(t, err, "not a wheel file name")
}

func TestRetagWheelFileAndRecord(t *testing.T) {
	wheel := retagWheelFile([]byte("Wheel-Version: 1.0\nTag: cp311-abi3-linux_x86_64\n"), "manylinux_2_35_x86_64")
	assert.Equal(t, "Wheel-Version: 1.0\nTag: cp311-abi3-manylinux_2_35_x86_64\n", string(wheel))

	record := recordWith([]byte("p/__init__.py,sha256=abc,3\np-1.dist-info/WHEEL,sha256=old,9\np-1.dist-info/RECORD,,\n"),
		"p-1.dist-info/RECORD", []byte("x"))
	// sha256("x") in the urlsafe, unpadded base64 of RECORD files (printf x | sha256sum).
	assert.Equal(t, "p/__init__.py,sha256=abc,3\np-1.dist-info/WHEEL,sha256=LXEWQrcmsEQBYnyp-6wy9chTD7GQPMTbAiWHF5IaSIE,1\np-1.dist-info/RECORD,,\n", string(record))
}

// A wheel without native code keeps "any" (auto) and its other entries byte for byte;
// a written tag that the contents do not allow is refused.
func TestRetagPureWheel(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "p-1-py3-none-linux_x86_64.whl")
	entries := []struct{ name, body string }{
		{"p/__init__.py", "print(1)\n"},
		{"p-1.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-linux_x86_64\n"},
		{"p-1.dist-info/RECORD", "p/__init__.py,sha256=x,9\np-1.dist-info/WHEEL,sha256=y,45\np-1.dist-info/RECORD,,\n"},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)})
		require.NoError(t, err)
		_, err = w.Write([]byte(e.body))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(in, buf.Bytes(), 0o644))

	out := filepath.Join(dir, "out")
	require.NoError(t, retagMain([]string{"-platform", "auto", "-out-dir", out, "-name-out", filepath.Join(dir, "name"), in}))
	name, err := os.ReadFile(filepath.Join(dir, "name"))
	require.NoError(t, err)
	assert.Equal(t, "p-1-py3-none-any.whl\n", string(name))

	zr, err := zip.OpenReader(filepath.Join(out, "p-1-py3-none-any.whl"))
	require.NoError(t, err)
	defer zr.Close()
	require.Len(t, zr.File, 3)
	for i, f := range zr.File {
		assert.Equal(t, entries[i].name, f.Name, "entry order is kept")
		data, err := readAll(f)
		require.NoError(t, err)
		if i == 0 {
			assert.Equal(t, entries[0].body, string(data), "other entries are copied as they are")
		}
		if i == 1 {
			assert.Equal(t, "Wheel-Version: 1.0\nTag: py3-none-any\n", string(data))
		}
	}

	err = retagMain([]string{"-platform", "manylinux_2_35_x86_64", "-out-dir", out, in})
	assert.ErrorContains(t, err, "holds no shared object")
}
