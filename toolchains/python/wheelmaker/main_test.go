package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWheelIsCompleteAndReproducible(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	init := write("init.py", "x = 1\n")
	so := write("ext.so", "\x7fELF")
	manifest := write("manifest", "pkg/__init__.py\t"+init+"\npkg/_ext.abi3.so\t"+so+"\n")
	headers := write("headers", "Requires-Python: >=3.11\n")
	readme := write("README.md", "# pkg\n")

	var wheels [2][]byte
	for i := range wheels {
		out := filepath.Join(dir, "w.whl")
		require.NoError(t, run(out, "my-pkg", "1.0", "cp311-abi3-manylinux_2_35_x86_64", headers, readme, manifest))
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		wheels[i] = data
	}
	assert.Equal(t, wheels[0], wheels[1], "two builds must be byte-identical")

	zr, err := zip.OpenReader(filepath.Join(dir, "w.whl"))
	require.NoError(t, err)
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	for _, name := range []string{"pkg/__init__.py", "pkg/_ext.abi3.so", "my_pkg-1.0.dist-info/METADATA",
		"my_pkg-1.0.dist-info/WHEEL", "my_pkg-1.0.dist-info/RECORD"} {
		require.Contains(t, files, name)
	}
	assert.Equal(t, os.FileMode(0o755), files["pkg/_ext.abi3.so"].Mode().Perm())
	record := read(t, files["my_pkg-1.0.dist-info/RECORD"])
	assert.Contains(t, record, "pkg/__init__.py,sha256=")
	assert.True(t, strings.HasSuffix(record, "my_pkg-1.0.dist-info/RECORD,,\n"))
	meta := read(t, files["my_pkg-1.0.dist-info/METADATA"])
	assert.Contains(t, meta, "Name: my-pkg\nVersion: 1.0\nRequires-Python: >=3.11\n")
	assert.Contains(t, read(t, files["my_pkg-1.0.dist-info/WHEEL"]), "Tag: cp311-abi3-manylinux_2_35_x86_64\n")
}

func TestDuplicateAndBadManifest(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.py")
	require.NoError(t, os.WriteFile(src, nil, 0o644))
	dup := filepath.Join(dir, "dup")
	require.NoError(t, os.WriteFile(dup, []byte("p/a.py\t"+src+"\np/a.py\t"+src+"\n"), 0o644))
	assert.ErrorContains(t, run(filepath.Join(dir, "x.whl"), "p", "1", "py3-none-any", "", "", dup), "two files")
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("no tab here\n"), 0o644))
	assert.ErrorContains(t, run(filepath.Join(dir, "x.whl"), "p", "1", "py3-none-any", "", "", bad), "bad manifest")
}

func read(t *testing.T, f *zip.File) string {
	rc, err := f.Open()
	require.NoError(t, err)
	defer rc.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := rc.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}
