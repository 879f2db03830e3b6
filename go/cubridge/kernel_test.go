package cubridge_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
	"github.com/cubridge/cubridge/go/cubridge/internal/kerneltest"
)

// The test kernels of internal/kerneltest, as cubind's generated code calls them.
var (
	saxpyKernel    = cubridge.NewKernel(kerneltest.Saxpy())
	truncateKernel = cubridge.NewKernel(kerneltest.Truncate())
	fillKernel     = cubridge.NewKernel(kerneltest.Fill())
)

func saxpySlices[T float32 | float64](x, y []T, a float64) error {
	return saxpyKernel.Call(nil, []int{-1}, cubridge.Slice(x), cubridge.Slice(y), cubridge.FloatScalar(a))
}

func TestKernelOverSlices(t *testing.T) {
	assert.Equal(t, "saxpy", saxpyKernel.Name())
	x, y := []float32{1, 2, 3, 4}, []float32{10, 20, 30, 40}
	require.NoError(t, saxpySlices(x, y, 2))
	assert.Equal(t, []float32{12, 24, 36, 48}, y)
	xd, yd := []float64{0.5, 0.25}, []float64{1, 1}
	require.NoError(t, saxpySlices(xd, yd, 4))
	assert.Equal(t, []float64{3, 2}, yd)
	require.NoError(t, saxpySlices[float32](nil, nil, 1), "empty arrays: nothing runs")
}

func TestKernelTwoDimensionsAndAnotherDtype(t *testing.T) {
	x := []float64{1.9, -2.7, 3, 4.5, 5, -6.1}
	q := make([]int32, 6)
	require.NoError(t, truncateKernel.Call(nil, []int{2, 3}, cubridge.Slice(x), cubridge.Slice(q)))
	assert.Equal(t, []int32{1, -2, 3, 4, 5, -6}, q)
	err := truncateKernel.Call(nil, []int{2, 2}, cubridge.Slice(x), cubridge.Slice(q))
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'x' has 6 elements, but x[m,n] is [2 2]: 4 elements")
	err = truncateKernel.Call(nil, []int{2, 3}, cubridge.Slice(x), cubridge.Slice(make([]int64, 6)))
	require.ErrorIs(t, err, cubridge.ErrUnsupportedDType)
	assert.Contains(t, err.Error(), "argument 'q' has dtype int64; truncate takes int32 there")
}

func TestKernelScalarSizesAnOutput(t *testing.T) {
	u := make([]float64, 5)
	require.NoError(t, fillKernel.Call(nil, nil, cubridge.IntScalar(5), cubridge.Slice(u), cubridge.FloatScalar(0.5)))
	assert.Equal(t, []float64{0.5, 0.5, 0.5, 0.5, 0.5}, u)
	err := fillKernel.Call(nil, nil, cubridge.IntScalar(4), cubridge.Slice(u), cubridge.FloatScalar(1))
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'u' has 5 elements, but u[n] is [4]: 4 elements")
}

func TestKernelOverBuffers(t *testing.T) {
	s := openForTest(t, cubridge.NewStream)
	x, err := cubridge.NewDevice[float32](1000, cubridge.OnStream(s))
	require.NoError(t, err)
	defer x.Free()
	y, err := cubridge.NewDevice[float32](1000, cubridge.OnStream(s))
	require.NoError(t, err)
	defer y.Free()
	require.NoError(t, cubridge.FillBuffer(x, 2, s))
	require.NoError(t, cubridge.FillBuffer(y, 1, s))
	// On another stream: the runtime orders it after the fills on s.
	other := openForTest(t, cubridge.NewStream)
	require.NoError(t, saxpyKernel.Call(other, []int{-1}, x, y, cubridge.FloatScalar(3)))
	require.NoError(t, other.Synchronize())
	got := make([]float32, 1000)
	require.NoError(t, y.CopyTo(got))
	for i, v := range got {
		require.Equal(t, float32(7), v, "y[%d]", i)
	}
	// A host slice with a Buffer: staged on the GPU, as it is on the CPU backend.
	host := make([]float32, 1000)
	for i := range host {
		host[i] = 1
	}
	require.NoError(t, saxpyKernel.Call(nil, []int{-1}, cubridge.Slice(host), y, cubridge.FloatScalar(1)))
	require.NoError(t, y.CopyTo(got))
	assert.Equal(t, float32(8), got[999])
}

func TestKernelErrorsNameTheArgument(t *testing.T) {
	x, y := []float32{1, 2}, []float64{1, 2}
	err := saxpyKernel.Call(nil, []int{-1}, cubridge.Slice(x), cubridge.Slice(y), cubridge.FloatScalar(1))
	require.ErrorIs(t, err, cubridge.ErrUnsupportedDType)
	var ce *cubridge.Error
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, "saxpy", ce.Op)
	assert.Equal(t, "argument 'y' has dtype float64, but must have the dtype of 'x' (float32)", ce.Msg)

	err = saxpyKernel.Call(nil, []int{-1}, cubridge.Slice([]int32{1}), cubridge.Slice([]int32{1}), cubridge.FloatScalar(1))
	require.ErrorIs(t, err, cubridge.ErrUnsupportedDType)
	assert.Contains(t, err.Error(), "argument 'x' has dtype int32; saxpy takes float32 or float64 there")

	err = saxpySlices([]float32{1, 2, 3}, []float32{1, 2}, 1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'y' has shape (2,), but n = 3 from 'x' (saxpy declares y[n])")

	err = saxpySlices([]float32{1}, []float32{1}, -1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "saxpy: INVALID_ARGUMENT: a = -1 < 0", "the kernel's own message")

	buf := make([]float32, 4)
	err = saxpySlices(buf[0:3], buf[1:4], 1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "arguments 'y' and 'x' overlap")

	err = saxpyKernel.Call(nil, nil, cubridge.Slice(x))
	require.ErrorIs(t, err, cubridge.ErrInternal)
	err = saxpyKernel.Call(nil, nil, cubridge.FloatScalar(1), cubridge.Slice(x), cubridge.FloatScalar(1))
	require.ErrorIs(t, err, cubridge.ErrInternal, "a scalar where an array is declared")
	stillWorks(t)
}

// kernelAPIRows are the bad calls of the Kernel API (api_walk_test.go).
func kernelAPIRows(f *walkFixture) map[string][]badCall {
	s8 := make([]float32, 8)
	call := func(s *cubridge.Stream, x, y cubridge.Arg) error {
		return saxpyKernel.Call(s, []int{-1}, x, y, cubridge.FloatScalar(1))
	}
	var nilBuf *cubridge.Buffer[float32]
	return map[string][]badCall{
		"NewKernel":   nil,
		"Kernel.Name": nil,
		"Kernel.Call": {
			{"nil buffer", inv, func() error { return call(nil, nilBuf, f.buf) }},
			{"freed buffer", inv, func() error { return call(nil, f.buf, f.freed) }},
			{"short buffer", inv, func() error { return call(nil, f.buf, f.short) }},
			{"closed stream", inv, func() error { return call(f.closedStream, f.buf, f.buf2) }},
			{"nil argument", inv, func() error { return call(nil, nil, f.buf) }},
			{"slice of another dtype", cubridge.ErrUnsupportedDType, func() error {
				return call(nil, cubridge.Slice(make([]int64, 8)), f.buf)
			}},
			{"wrong count", cubridge.ErrInternal, func() error { return saxpyKernel.Call(nil, nil) }},
		},
		"Slice": {{"nil slice", nil, func() error { return call(nil, cubridge.Slice[float32](nil), cubridge.Slice[float32](nil)) }}},
		"FloatScalar": {{"a < 0", inv, func() error {
			return saxpyKernel.Call(nil, []int{-1}, cubridge.Slice(s8), f.buf, cubridge.FloatScalar(-1))
		}}},
		"IntScalar": {{"negative size", inv, func() error {
			return fillKernel.Call(nil, nil, cubridge.IntScalar(-1), cubridge.Slice[float64](nil), cubridge.FloatScalar(0))
		}}},
	}
}
