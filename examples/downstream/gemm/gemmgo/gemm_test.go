package gemmgo

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShapesCheckedBeforeTheGPU(t *testing.T) {
	_, err := Matmul(2, 2, 2, make([]float32, 3), make([]float32, 4))
	require.ErrorIs(t, err, ErrShape)
	_, err = Uniform(-1, 0)
	require.ErrorIs(t, err, ErrShape)
}

func TestOnTheGPU(t *testing.T) {
	if DeviceCount() == 0 {
		_, err := Matmul(1, 1, 1, []float32{1}, []float32{1})
		require.True(t, errors.Is(err, ErrNoDevice), "got %v", err)
		t.Skip("no CUDA device: cuBLAS and cuRAND linked and loaded, nothing run")
	}
	c, err := Matmul(2, 2, 2, []float32{1, 2, 3, 4}, []float32{5, 6, 7, 8})
	require.NoError(t, err)
	require.Equal(t, []float32{19, 22, 43, 50}, c)
	u, err := Uniform(1<<16, 42)
	require.NoError(t, err)
	sum := 0.0
	for _, v := range u {
		require.True(t, v > 0 && v <= 1)
		sum += float64(v)
	}
	require.InDelta(t, 0.5, sum/float64(len(u)), 0.01)
	x := []float32{1, 2, 3}
	require.NoError(t, Affine(x, 2, 1))
	require.Equal(t, []float32{3, 5, 7}, x)
}
