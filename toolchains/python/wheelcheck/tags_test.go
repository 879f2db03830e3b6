package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManylinuxGlibc(t *testing.T) {
	for tag, want := range map[string]version{
		"manylinux_2_35_x86_64": {2, 35},
		"manylinux_2_17_x86_64": {2, 17},
		"manylinux2014_x86_64":  {2, 17},
		"manylinux1_x86_64":     {2, 5},
	} {
		got, err := manylinuxGlibc(tag)
		require.NoError(t, err, tag)
		assert.Equal(t, want, got, tag)
	}
	for _, bad := range []string{"linux_x86_64", "manylinux_2_x86", "any"} {
		_, err := manylinuxGlibc(bad)
		assert.Error(t, err, bad)
	}
}

func TestPlatformTag(t *testing.T) {
	tag, err := platformTag("cubridge_cu13-0.1.0-cp311-abi3-manylinux_2_35_x86_64.whl")
	require.NoError(t, err)
	assert.Equal(t, "manylinux_2_35_x86_64", tag)
	_, err = platformTag("cubridge.tar.gz")
	assert.Error(t, err)
}

func TestParseVersion(t *testing.T) {
	v, err := parseVersion("2.2.5")
	require.NoError(t, err)
	assert.Equal(t, version{2, 2}, v)
	assert.True(t, version{2, 34}.less(version{2, 35}))
	assert.False(t, version{3, 0}.less(version{2, 99}))
	_, err = parseVersion("x")
	assert.Error(t, err)
}

func TestProblems(t *testing.T) {
	n := elfNeeds{
		arch:        "x86_64",
		glibc:       version{2, 38},
		libraries:   []string{"libc.so.6", "libstdc++.so.6"},
		cxxVersions: []string{"_Znwm@GLIBCXX_3.4"},
		exports:     []string{"PyInit__native", "cubridge_add"},
	}
	p := n.problems("cubridge/_native.abi3.so", version{2, 35}, "x86_64", nil)
	require.Len(t, p, 4)
	assert.Contains(t, p[0], "needs glibc 2.38")
	assert.Contains(t, p[1], "libstdc++.so.6")
	assert.Contains(t, p[2], "C++ runtime")
	assert.Contains(t, p[3], "exports cubridge_add")
	ok := elfNeeds{arch: "x86_64", glibc: version{2, 34}, libraries: []string{"libc.so.6"}, exports: []string{"PyInit__native"}}
	assert.Empty(t, ok.problems("cubridge/_native.abi3.so", version{2, 35}, "x86_64", nil))
}

func TestProblemsOfTheArchitecture(t *testing.T) {
	arm := elfNeeds{arch: "aarch64", glibc: version{2, 35}, libraries: []string{"libc.so.6", "ld-linux-aarch64.so.1"}, exports: []string{"PyInit__native"}}
	assert.Empty(t, arm.problems("cubridge/_native.abi3.so", version{2, 35}, "aarch64", nil), "each architecture's own dynamic loader is allowed")
	p := arm.problems("cubridge/_native.abi3.so", version{2, 35}, "x86_64", nil)
	require.Len(t, p, 2)
	assert.Contains(t, p[0], `aarch64 code in a wheel tagged for "x86_64"`)
	assert.Contains(t, p[1], "ld-linux-aarch64.so.1, which manylinux does not provide")
	assert.Equal(t, "aarch64", tagArch("manylinux_2_35_aarch64"))
	assert.Equal(t, "x86_64", tagArch("manylinux2014_x86_64"))
}

func TestExternalLibraries(t *testing.T) {
	n := elfNeeds{arch: "x86_64", glibc: version{2, 34}, libraries: []string{"libc.so.6", "libcublas.so.13", "libcurand.so.10", "libfoo.so.1"}, exports: []string{"PyInit__gemm"}}
	var external patterns
	require.NoError(t, external.Set("libcublas.so.*"))
	require.NoError(t, external.Set("libcurand.so.[0-9]*"))
	p := n.problems("mygemm/_gemm.abi3.so", version{2, 35}, "x86_64", external)
	require.Len(t, p, 1, "only the library no pattern names is a problem")
	assert.Contains(t, p[0], "needs libfoo.so.1, which manylinux does not provide")
	assert.Len(t, n.problems("mygemm/_gemm.abi3.so", version{2, 35}, "x86_64", nil), 3)
	assert.ErrorContains(t, external.Set("libcublas.so.["), `bad pattern "libcublas.so.["`)
}
