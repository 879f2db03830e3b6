package tests_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
	"github.com/cubridge/cubridge/toolchains/bind/tests/demo"
)

// The generated package: Axpy / AxpyBuffer, ToInt / ToIntBuffer, Iota / IotaBuffer.

func TestAxpyOverSlicesAndBuffers(t *testing.T) {
	x, y := []float64{0, 1, 2, 3}, []float64{1, 1, 1, 1}
	require.NoError(t, demo.Axpy(x, y, 2))
	assert.Equal(t, []float64{1, 3, 5, 7}, y)

	s, err := cubridge.NewStream()
	require.NoError(t, err)
	defer s.Close()
	xb, err := cubridge.NewDevice[float32](3, cubridge.OnStream(s))
	require.NoError(t, err)
	defer xb.Free()
	yb, err := cubridge.NewDevice[float32](3, cubridge.OnStream(s))
	require.NoError(t, err)
	defer yb.Free()
	require.NoError(t, xb.CopyFrom([]float32{1, 2, 3}))
	require.NoError(t, yb.CopyFrom([]float32{10, 10, 10}))
	require.NoError(t, demo.AxpyBuffer(xb, yb, 0.5, s))
	require.NoError(t, s.Synchronize())
	got := make([]float32, 3)
	require.NoError(t, yb.CopyTo(got))
	assert.Equal(t, []float32{10.5, 11, 11.5}, got)
}

func TestToIntTwoDimensions(t *testing.T) {
	x := []float32{1.9, -2.7, 3, 4.5, 5, -6.1}
	q := make([]int32, 6)
	require.NoError(t, demo.ToInt(x, 10, q, 2, 3))
	assert.Equal(t, []int32{19, -27, 30, 45, 50, -61}, q)
	err := demo.ToInt(x, 1, q[:4], 2, 3)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'q' has 4 elements")
}

func TestIotaSizedByAScalar(t *testing.T) {
	r := make([]int64, 4)
	require.NoError(t, demo.Iota(4, 7, r))
	assert.Equal(t, []int64{7, 8, 9, 10}, r)
	err := demo.Iota(5, 0, r)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'r' has 4 elements, but r[n] is [5]")
}

func TestErrorsNameTheArgument(t *testing.T) {
	err := demo.Axpy([]float32{1, 2}, []float32{1}, 1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	var ce *cubridge.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "axpy", ce.Op)
	assert.Contains(t, ce.Msg, "argument 'y' has shape (1,), but n = 2 from 'x'")
	require.ErrorIs(t, demo.AxpyBuffer[float32](nil, nil, 1, nil), cubridge.ErrInvalidArgument)
}
