package saxpy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/downstream/saxpy"
	"example.com/downstream/testdata"
	"github.com/cubridge/cubridge/go/cubridge"
)

// vectorsPath is the shared test vectors' file, from the test's directory.
const vectorsPath = "../testdata/saxpy.txt"

func convert[T float32 | float64](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

func runCase[T float32 | float64](t *testing.T, c testdata.Case) {
	x, y := convert[T](c.Values["x"]), convert[T](c.Values["y"])
	require.NoError(t, saxpy.Saxpy(x, y, c.Scalar("a")))
	assert.Equal(t, convert[T](c.Values["want"]), y, c.Name)

	// The same case on Buffers (device memory on the GPU, host memory on the CPU backend).
	xb, err := cubridge.NewDevice[T](len(x))
	require.NoError(t, err)
	defer xb.Free()
	yb, err := cubridge.NewDevice[T](len(x))
	require.NoError(t, err)
	defer yb.Free()
	require.NoError(t, xb.CopyFrom(x))
	require.NoError(t, yb.CopyFrom(convert[T](c.Values["y"])))
	require.NoError(t, saxpy.SaxpyBuffer(xb, yb, c.Scalar("a"), nil))
	got := make([]T, len(x))
	require.NoError(t, yb.CopyTo(got))
	assert.Equal(t, convert[T](c.Values["want"]), got, c.Name+" (Buffers)")
}

func TestVectors(t *testing.T) {
	cases, err := testdata.Load(vectorsPath)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.DType == "float32" {
				runCase[float32](t, c)
			} else {
				runCase[float64](t, c)
			}
		})
	}
}

// A write on a side stream is seen by a call on the default stream: the
// runtime orders the kernel after the Buffer's last write, wherever it ran.
func TestProducerOnASideStream(t *testing.T) {
	const n = 1 << 22
	side, err := cubridge.NewStream()
	require.NoError(t, err)
	defer side.Close()
	x, err := cubridge.NewDevice[float32](n, cubridge.OnStream(side))
	require.NoError(t, err)
	defer x.Free()
	y, err := cubridge.NewDevice[float32](n, cubridge.OnStream(side))
	require.NoError(t, err)
	defer y.Free()
	require.NoError(t, cubridge.FillBuffer(y, 1, side))
	for i := 0; i < 20; i++ { // a queue of work on the side stream before the last write
		require.NoError(t, cubridge.FillBuffer(x, float32(i), side))
	}
	require.NoError(t, cubridge.FillBuffer(x, 2, side))
	require.NoError(t, saxpy.SaxpyBuffer(x, y, 3, nil))
	got := make([]float32, n)
	require.NoError(t, y.CopyTo(got))
	assert.Equal(t, float32(7), got[0])
	assert.Equal(t, float32(7), got[n-1])
}

func TestErrorsNameTheArgument(t *testing.T) {
	err := saxpy.Saxpy([]float32{1, 2, 3}, []float32{1, 2}, 1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "saxpy: INVALID_ARGUMENT: argument 'y' has shape (2,), but n = 3 from 'x'")

	x, err := cubridge.NewDevice[float32](4)
	require.NoError(t, err)
	require.NoError(t, x.Free())
	err = saxpy.SaxpyBuffer(x, x, 1, nil)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "x: buffer is already freed")
}
