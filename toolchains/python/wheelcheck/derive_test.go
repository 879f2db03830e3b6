package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeriveTag(t *testing.T) {
	tag, why, err := deriveTag([]objectNeeds{
		{name: "a.so", arch: "x86_64", glibc: version{2, 17}},
		{name: "_native.abi3.so", arch: "x86_64", glibc: version{2, 35}},
	})
	require.NoError(t, err)
	assert.Equal(t, "manylinux_2_35_x86_64", tag)
	assert.Equal(t, "_native.abi3.so needs glibc 2.35", why)

	tag, _, err = deriveTag(nil)
	require.NoError(t, err)
	assert.Equal(t, "any", tag)

	_, _, err = deriveTag([]objectNeeds{{name: "a.so", arch: "x86_64"}, {name: "b.so", arch: "aarch64"}})
	assert.ErrorContains(t, err, "two architectures")
}

func TestCheckTag(t *testing.T) {
	why := "_native.abi3.so needs glibc 2.35"
	assert.NoError(t, checkTag("manylinux_2_35_x86_64", "manylinux_2_35_x86_64", why))
	assert.NoError(t, checkTag("manylinux_2_39_x86_64", "manylinux_2_35_x86_64", why), "a newer glibc than needed is allowed")
	assert.NoError(t, checkTag("any", "any", "no shared objects"))

	err := checkTag("manylinux_2_31_x86_64", "manylinux_2_35_x86_64", why)
	assert.EqualError(t, err, `platform "manylinux_2_31_x86_64" allows glibc 2.31, but _native.abi3.so needs glibc 2.35: use "manylinux_2_35_x86_64" or "auto"`)
	assert.ErrorContains(t, checkTag("manylinux2014_x86_64", "manylinux_2_35_x86_64", why), "allows glibc 2.17")
	assert.ErrorContains(t, checkTag("manylinux_2_35_aarch64", "manylinux_2_35_x86_64", why), `is not for x86_64`)
	assert.ErrorContains(t, checkTag("any", "manylinux_2_35_x86_64", why), `platform "any", but _native.abi3.so needs glibc 2.35`)
	assert.ErrorContains(t, checkTag("linux_x86_64", "manylinux_2_35_x86_64", why), "not a manylinux tag")
	assert.ErrorContains(t, checkTag("manylinux_2_35_x86_64", "any", "no shared objects"), "holds no shared object")
}
