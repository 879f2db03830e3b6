package quantize_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"example.com/downstream/quantize"
	"example.com/downstream/testdata"
	"github.com/cubridge/cubridge/go/cubridge"
)

// convert is v as T; the want column holds int32 values only.
func convert[T float32 | float64 | int32](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

func runCase[T float32 | float64](t *testing.T, c testdata.Case) {
	m, n := int(c.Scalar("m")), int(c.Scalar("n"))
	x := convert[T](c.Values["x"])
	want := convert[int32](c.Values["want"])
	q := make([]int32, m*n)
	require.NoError(t, quantize.Quantize(x, c.Scalar("scale"), q, m, n))
	assert.Equal(t, want, q, c.Name)

	xb, err := cubridge.NewDevice[T](m * n)
	require.NoError(t, err)
	defer xb.Free()
	qb, err := cubridge.NewDevice[int32](m * n)
	require.NoError(t, err)
	defer qb.Free()
	require.NoError(t, xb.CopyFrom(x))
	require.NoError(t, quantize.QuantizeBuffer(xb, c.Scalar("scale"), qb, m, n, nil))
	got := make([]int32, m*n)
	require.NoError(t, qb.CopyTo(got))
	assert.Equal(t, want, got, c.Name+" (Buffers)")
}

func TestVectors(t *testing.T) {
	cases, err := testdata.Load("../testdata/quantize.txt")
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

func TestErrorsNameTheArgument(t *testing.T) {
	x := make([]float32, 6)
	err := quantize.Quantize(x, 1, make([]int32, 5), 2, 3)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "argument 'q' has 5 elements, but q[m,n] is [2 3]: 6 elements")
	err = quantize.Quantize(x, 0, make([]int32, 6), 2, 3)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "quantize: INVALID_ARGUMENT: scale is 0")
}
