package gemmgo_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/downstream/gemm/gemmgo"
	"example.com/downstream/testdata"
	"github.com/cubridge/cubridge/go/cubridge"
)

func TestMatmulVectors(t *testing.T) {
	cases, err := testdata.Load("../../testdata/matmul.txt")
	require.NoError(t, err)
	for _, c := range cases {
		if c.DType != "float32" { // Go has no float16: the Python and C++ tests take those
			continue
		}
		m, k, n := int(c.Scalar("m")), int(c.Scalar("k")), int(c.Scalar("n"))
		a, b, want := f32(c.Values["a"]), f32(c.Values["b"]), f32(c.Values["want"])
		got := make([]float32, m*n)
		require.NoError(t, gemmgo.Matmul(a, b, got, m, k, n), c.Name)
		assert.Equal(t, want, got, c.Name)
	}
}

func TestShapesChecked(t *testing.T) {
	err := gemmgo.Matmul(make([]float32, 3), make([]float32, 4), make([]float32, 4), 2, 2, 2)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'a' has 3 elements, but a[m,k] is [2 2]: 4 elements")
}

func TestAffineAndUniform(t *testing.T) {
	x := []float32{1, 2, 3}
	require.NoError(t, gemmgo.Affine(x, 2, 1))
	assert.Equal(t, []float32{3, 5, 7}, x)
	u := make([]float32, 1<<16)
	err := gemmgo.Uniform(len(u), 42, u)
	if backend, _ := cubridge.Backend(); backend != cubridge.BackendCUDA {
		require.ErrorIs(t, err, cubridge.ErrNoDevice)
		return
	}
	require.NoError(t, err)
	sum := 0.0
	for _, v := range u {
		require.True(t, v > 0 && v <= 1)
		sum += float64(v)
	}
	assert.Less(t, math.Abs(sum/float64(len(u))-0.5), 0.01)
}

func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
