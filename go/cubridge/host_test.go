package cubridge_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

func TestHostElementwise(t *testing.T) {
	testAllTypes(t, testHostElementwise[float32], testHostElementwise[float64],
		testHostElementwise[int32], testHostElementwise[int64])
}

func testHostElementwise[T cubridge.Number](t *testing.T) {
	for _, n := range []int{1, 7, 1000, 100_003} {
		a, b := sample[T](n, 1), sample[T](n, 2)
		for _, op := range []string{"add", "sub", "mul", "div"} {
			got := make([]T, n)
			require.NoError(t, sliceBinary(op, got, a, b, T(-3)), op)
			assertSame(t, refBinary(op, a, b, T(-3)), got, op)
		}
		y := sample[T](n, 3)
		want := refAxpy(T(3), a, y)
		require.NoError(t, cubridge.Axpy(T(3), a, y))
		assertSame(t, want, y, "axpy")

		x := sample[T](n, 4)
		want = refScale(T(-2), x)
		require.NoError(t, cubridge.Scale(T(-2), x))
		assertSame(t, want, x, "scale")

		require.NoError(t, cubridge.Fill(x, T(5)))
		for i := range want {
			want[i] = 5
		}
		assertSame(t, want, x, "fill")
	}
}

func TestHostInPlace(t *testing.T) {
	a := []float32{1, 2, 3}
	b := []float32{10, 20, 30}
	require.NoError(t, cubridge.Add(a, a, b)) // dst aliases a exactly: allowed
	assert.Equal(t, []float32{11, 22, 33}, a)
	require.NoError(t, cubridge.Mul(b, a, b))
	assert.Equal(t, []float32{110, 440, 990}, b)
}

func TestHostIntegerEdges(t *testing.T) {
	a := []int32{math.MaxInt32, math.MinInt32, 7, -7, 7}
	b := []int32{1, -1, 2, 2, 0}
	got := make([]int32, len(a))
	require.NoError(t, cubridge.Add(got, a, b))
	assert.Equal(t, []int32{math.MinInt32, math.MaxInt32, 9, -5, 7}, got, "add wraps")
	require.NoError(t, cubridge.Div(got, a, b, 42))
	assert.Equal(t, []int32{math.MaxInt32, math.MinInt32, 3, -3, 42}, got, "div truncates, MinInt/-1 wraps, /0 gives zero")
}

func TestScalarNotRepresentable(t *testing.T) {
	x := make([]int64, 3)
	v := int64(1)<<60 + 1
	for name, err := range map[string]error{
		"fill":     cubridge.Fill(x, v),
		"scale":    cubridge.Scale(v, x),
		"axpy":     cubridge.Axpy(v, x, x),
		"div":      cubridge.Div(x, x, x, v),
		"fill max": cubridge.Fill(x, int64(math.MaxInt64)),
	} {
		assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, name)
	}
	require.NoError(t, cubridge.Fill(x, int64(1)<<60), "2^60 is exact in a float64")
	assert.Equal(t, []int64{1 << 60, 1 << 60, 1 << 60}, x)
}

func TestHostFloatSpecials(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	a := []float64{1, -1, 0, inf, nan, 6}
	b := []float64{0, 0, 0, inf, 1, math.Copysign(0, -1)}
	got := make([]float64, len(a))
	require.NoError(t, cubridge.Div(got, a, b, -7))
	assertSame(t, []float64{-7, -7, -7, nan, nan, -7}, got, "b == ±0 gives the zero value")
	require.NoError(t, cubridge.Sub(got, a, b))
	assertSame(t, []float64{1, -1, 0, nan, nan, 6}, got)
}

func TestHostConvert(t *testing.T) {
	src := []float64{1.9, -1.9, math.NaN(), 1e20, -1e20, 2.5, 0}
	i32 := make([]int32, len(src))
	require.NoError(t, cubridge.Convert(i32, src))
	assert.Equal(t, []int32{1, -1, 0, math.MaxInt32, math.MinInt32, 2, 0}, i32)
	assert.Equal(t, refConvert[int32](src), i32)

	i64 := make([]int64, len(src))
	require.NoError(t, cubridge.Convert(i64, src))
	assert.Equal(t, refConvert[int64](src), i64)

	f32 := make([]float32, len(src))
	require.NoError(t, cubridge.Convert(f32, src))
	assertSame(t, refConvert[float32](src), f32)

	wide := []int64{1<<40 + 5, -1, math.MinInt64}
	narrow := make([]int32, 3)
	require.NoError(t, cubridge.Convert(narrow, wide))
	assert.Equal(t, []int32{5, -1, 0}, narrow, "int64 -> int32 wraps")

	back := make([]float64, 3)
	require.NoError(t, cubridge.Convert(back, narrow))
	assert.Equal(t, []float64{5, -1, 0}, back)

	same := []float32{1.5, -2.5}
	asInt := make([]int32, 2)
	require.NoError(t, cubridge.Convert(asInt, same))
	assert.Equal(t, []int32{1, -2}, asInt)
}

func TestHostLengthMismatch(t *testing.T) {
	a, b, short := make([]float32, 4), make([]float32, 4), make([]float32, 3)
	errs := map[string]error{
		"add dst": cubridge.Add(short, a, b),
		"add a":   cubridge.Add(a, short, b),
		"sub b":   cubridge.Sub(a, b, short),
		"mul":     cubridge.Mul(a, b, short),
		"div":     cubridge.Div(a, short, b, 0),
		"axpy":    cubridge.Axpy(1, short, a),
		"convert": cubridge.Convert(make([]int32, 3), a),
	}
	_, errs["dot"] = cubridge.Dot(a, short)
	_, errs["dotint"] = cubridge.DotInt([]int32{1}, []int32{})
	for name, err := range errs {
		require.Error(t, err, name)
		assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, name)
		var e *cubridge.Error
		require.ErrorAs(t, err, &e, name)
		assert.Equal(t, cubridge.StatusInvalidArgument, e.Status, name)
		assert.Contains(t, e.Msg, "elements", name)
	}
	assert.Equal(t, make([]float32, 4), a, "nothing written on error")
}

func TestHostEmpty(t *testing.T) {
	var nilSlice []float64
	empty := []float64{}
	assert.NoError(t, cubridge.Add(nilSlice, nilSlice, nilSlice))
	assertEmptySliceOps(t, empty, nilSlice)
	assert.NoError(t, cubridge.Convert([]int32{}, empty))

	d, err := cubridge.Dot(nilSlice, empty)
	require.NoError(t, err)
	assert.Zero(t, d)
	si, err := cubridge.SumInt([]int32{})
	require.NoError(t, err)
	assert.Zero(t, si)

	_, err = cubridge.Min(empty)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, "min of nothing")
	_, err = cubridge.Max(nilSlice)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, "max of nothing")
}

func TestHostPartialOverlap(t *testing.T) {
	buf := []float32{1, 2, 3, 4, 5}
	err := cubridge.Add(buf[1:], buf[:4], buf[:4])
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "overlap")
	assert.Equal(t, []float32{1, 2, 3, 4, 5}, buf, "nothing written")

	err = cubridge.Axpy(1, buf[:4], buf[1:])
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)

	// float32 -> float64 at the same address: sizes differ, so it overlaps.
	wide := make([]float64, 2)
	err = cubridge.Convert(wide, []float32{1, 2})
	require.NoError(t, err, "distinct memory")
}

func TestHostReductions(t *testing.T) {
	testAllTypes(t, testHostReductions[float32], testHostReductions[float64],
		testHostReductions[int32], testHostReductions[int64])
}

func testHostReductions[T cubridge.Number](t *testing.T) {
	for _, n := range []int{1, 2, 33, 4096, 1_000_001} {
		x, y := sample[T](n, 5), sample[T](n, 6)
		mn, err := cubridge.Min(x)
		require.NoError(t, err)
		assert.Equal(t, refMinMax(x, false), mn, "min n=%d", n)
		mx, err := cubridge.Max(x)
		require.NoError(t, err)
		assert.Equal(t, refMinMax(x, true), mx, "max n=%d", n)

		// The samples are small integers and quarters: every sum is exact.
		assertSumDot(t, "slices", x, y, nil, nil, fmt.Sprintf("n=%d", n))
	}
}

func TestHostMinMaxNaN(t *testing.T) {
	x := []float32{3, float32(math.NaN()), -1}
	m, err := cubridge.Min(x)
	require.NoError(t, err)
	assert.True(t, isNaN(m), "NaN wins")
	m, err = cubridge.Max(x)
	require.NoError(t, err)
	assert.True(t, isNaN(m), "NaN wins")
}

func TestSumIntWraps(t *testing.T) {
	s, err := cubridge.SumInt([]int64{math.MaxInt64, 1})
	require.NoError(t, err)
	assert.Equal(t, int64(math.MinInt64), s)
	s, err = cubridge.SumInt([]int32{math.MaxInt32, 1})
	require.NoError(t, err)
	assert.Equal(t, int64(math.MaxInt32)+1, s, "int32 sums accumulate in int64")
}

func TestContextCanceledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := make([]float32, 10)
	one := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	for name, err := range map[string]error{
		"add":     cubridge.AddContext(ctx, dst, one, one),
		"sub":     cubridge.SubContext(ctx, dst, one, one),
		"mul":     cubridge.MulContext(ctx, dst, one, one),
		"div":     cubridge.DivContext(ctx, dst, one, one, 0),
		"axpy":    cubridge.AxpyContext(ctx, 2, one, dst),
		"scale":   cubridge.ScaleContext(ctx, 2, dst),
		"fill":    cubridge.FillContext(ctx, dst, 3),
		"convert": cubridge.ConvertContext(ctx, dst, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}),
	} {
		assert.ErrorIs(t, err, context.Canceled, name)
	}
	assert.Equal(t, make([]float32, 10), dst, "no work done")

	//lint:ignore SA1012 a nil context is a caller bug that must not panic
	assert.ErrorIs(t, cubridge.AddContext(nil, dst, one, one), cubridge.ErrInvalidArgument) //nolint:staticcheck
}

// stopAfter is a context that reports itself done after a number of Err calls.
type stopAfter struct {
	context.Context
	left int
}

func (c *stopAfter) Done() <-chan struct{} { return make(chan struct{}) }
func (c *stopAfter) Err() error {
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}
func (c *stopAfter) Deadline() (time.Time, bool) { return time.Time{}, false }

func TestContextCanceledBetweenChunks(t *testing.T) {
	n := 2*(1<<22) + 5 // three chunks
	a := make([]float32, n)
	require.NoError(t, cubridge.Fill(a, 1))
	dst := make([]float32, n)
	// Err is consulted before the first chunk and before the second.
	ctx := &stopAfter{Context: context.Background(), left: 1}
	err := cubridge.AddContext(ctx, dst, a, a)
	require.True(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.Equal(t, float32(2), dst[0], "first chunk done")
	assert.Equal(t, float32(2), dst[1<<22-1], "first chunk done")
	assert.Equal(t, float32(0), dst[1<<22], "second chunk not started")
	assert.Equal(t, float32(0), dst[n-1])

	// A context that never stops processes every chunk.
	ctx = &stopAfter{Context: context.Background(), left: 100}
	require.NoError(t, cubridge.AddContext(ctx, dst, a, a))
	assert.Equal(t, float32(2), dst[n-1])
	require.NoError(t, cubridge.ConvertContext(ctx, dst, make([]int32, n)))
	assert.Equal(t, float32(0), dst[n-1])
}

func TestContextChunkedOverlapRefused(t *testing.T) {
	n := 1<<22 + 10
	buf := make([]float64, n+(1<<22))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// dst starts one whole chunk after a: chunk by chunk they would not
	// overlap, but the whole arrays do, so this must be refused up front.
	err := cubridge.AddContext(ctx, buf[1<<22:], buf[:n], buf[:n])
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
}
