package cubridge_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// Dispatch helpers: one name per op for table-driven tests over both APIs.

func sliceBinary[T cubridge.Number](op string, dst, a, b []T, zero T) error {
	switch op {
	case "add":
		return cubridge.Add(dst, a, b)
	case "sub":
		return cubridge.Sub(dst, a, b)
	case "mul":
		return cubridge.Mul(dst, a, b)
	case "div":
		return cubridge.Div(dst, a, b, zero)
	}
	panic(op)
}

func bufferBinary[T cubridge.Number](op string, dst, a, b *cubridge.Buffer[T], zero T) error {
	switch op {
	case "add":
		return cubridge.AddBuffer(dst, a, b, nil)
	case "sub":
		return cubridge.SubBuffer(dst, a, b, nil)
	case "mul":
		return cubridge.MulBuffer(dst, a, b, nil)
	case "div":
		return cubridge.DivBuffer(dst, a, b, zero, nil)
	}
	panic(op)
}

func sliceMinMax[T cubridge.Number](op string, x []T) (T, error) {
	if op == "min" {
		return cubridge.Min(x)
	}
	return cubridge.Max(x)
}

func bufferMinMax[T cubridge.Number](op string, x *cubridge.Buffer[T]) (T, error) {
	if op == "min" {
		return cubridge.MinBuffer(x, nil)
	}
	return cubridge.MaxBuffer(x, nil)
}

// reducer runs sum or dot ("sum", "dot") through path ("slices": x and y;
// "buffers": xb and yb) with cubridge's functions of one element type T,
// whose result is R.
type reducer[T cubridge.Number, R any] func(op, path string, x, y []T, xb, yb *cubridge.Buffer[T]) (R, error)

// newReducer makes the reducer of one element type's sum and dot functions:
// the float ones and the integer ones differ only in name and result type.
func newReducer[T cubridge.Number, R any](
	sum func([]T) (R, error),
	sumBuffer func(*cubridge.Buffer[T], *cubridge.Stream) (R, error),
	dot func(x, y []T) (R, error),
	dotBuffer func(x, y *cubridge.Buffer[T], s *cubridge.Stream) (R, error),
) any {
	return reducer[T, R](func(op, path string, x, y []T, xb, yb *cubridge.Buffer[T]) (R, error) {
		switch op + "/" + path {
		case "sum/slices":
			return sum(x)
		case "sum/buffers":
			return sumBuffer(xb, nil)
		case "dot/slices":
			return dot(x, y)
		case "dot/buffers":
			return dotBuffer(xb, yb, nil)
		}
		panic(op + "/" + path)
	})
}

// reducers holds the reducer of each element type (an any: the result type
// is float64 for the float types, int64 for the integer ones).
var reducers = map[cubridge.DType]any{
	cubridge.Float32: newReducer[float32](cubridge.Sum, cubridge.SumBuffer, cubridge.Dot, cubridge.DotBuffer),
	cubridge.Float64: newReducer[float64](cubridge.Sum, cubridge.SumBuffer, cubridge.Dot, cubridge.DotBuffer),
	cubridge.Int32:   newReducer[int32](cubridge.SumInt, cubridge.SumIntBuffer, cubridge.DotInt, cubridge.DotIntBuffer),
	cubridge.Int64:   newReducer[int64](cubridge.SumInt, cubridge.SumIntBuffer, cubridge.DotInt, cubridge.DotIntBuffer),
}

// reduce runs sum or dot of T through path, as reducer; R must be T's result
// type (float64 for a float T, int64 for an integer T).
func reduce[R any, T cubridge.Number](op, path string, x, y []T, xb, yb *cubridge.Buffer[T]) (R, error) {
	return reducers[cubridge.DTypeOf[T]()].(reducer[T, R])(op, path, x, y, xb, yb)
}

// reduceAny is reduce with T's own result type.
func reduceAny[T cubridge.Number](op, path string, x, y []T, xb, yb *cubridge.Buffer[T]) (any, error) {
	if isFloat[T]() {
		return reduce[float64](op, path, x, y, xb, yb)
	}
	return reduce[int64](op, path, x, y, xb, yb)
}

// assertSumDot asserts that sum(x) and dot(x, y) through path ("slices" or
// "buffers"; xb and yb hold x and y) equal the reference exactly: float64
// for a float T, int64 for an integer T. what names the case in messages.
func assertSumDot[T cubridge.Number](t *testing.T, path string, x, y []T, xb, yb *cubridge.Buffer[T], what string) {
	t.Helper()
	for _, op := range []string{"sum", "dot"} {
		var refY []T // dot's y; nil: the sum
		if op == "dot" {
			refY = y
		}
		got, err := reduceAny(op, path, x, y, xb, yb)
		require.NoError(t, err, "%s %s", op, what)
		assert.Equal(t, refSumDot(x, refY), got, "%s %s", op, what)
	}
}

// refSumDot is the reference sum of x (y nil) or of x[i]*y[i]: refSum's
// float64 for a float T, refSumInt's int64 for an integer T.
func refSumDot[T cubridge.Number](x, y []T) any {
	switch xs := any(x).(type) {
	case []float32:
		sum, _ := refSum(xs, any(y).([]float32))
		return sum
	case []float64:
		sum, _ := refSum(xs, any(y).([]float64))
		return sum
	case []int32:
		return refSumInt(xs, any(y).([]int32))
	case []int64:
		return refSumInt(xs, any(y).([]int64))
	}
	panic(fmt.Sprintf("refSumDot: %T", x))
}

// newDeviceFrom returns a device buffer holding a copy of s, freed at the
// end of the test.
func newDeviceFrom[T cubridge.Number](t testing.TB, s []T) *cubridge.Buffer[T] {
	t.Helper()
	b, err := cubridge.NewDevice[T](len(s))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Free()) })
	require.NoError(t, b.CopyFrom(s))
	return b
}

// openForTest returns what open makes (cubridge.NewStream, cubridge.NewEvent),
// closed at the end of the test.
func openForTest[R interface{ Close() error }](t testing.TB, open func() (R, error)) R {
	t.Helper()
	r, err := open()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// withBuffers copies each slice to a device buffer, runs f on the buffers,
// and copies every buffer back into its slice.
func withBuffers[T cubridge.Number](t testing.TB, slices [][]T, f func([]*cubridge.Buffer[T]) error) {
	t.Helper()
	bufs := make([]*cubridge.Buffer[T], len(slices))
	for i, s := range slices {
		bufs[i] = newDeviceFrom(t, s)
	}
	require.NoError(t, f(bufs))
	for i, s := range slices {
		require.NoError(t, bufs[i].CopyTo(s))
	}
}

// testAllTypes runs a generic test once per Go element type.
func testAllTypes(t *testing.T, f32, f64, i32, i64 func(*testing.T)) {
	t.Run("float32", f32)
	t.Run("float64", f64)
	t.Run("int32", i32)
	t.Run("int64", i64)
}

// sample returns n deterministic values of T in a small range, including
// zeros and negatives, so that sums and products stay exact.
func sample[T cubridge.Number](n, seed int) []T {
	out := make([]T, n)
	for i := range out {
		v := (i*7+seed*13)%19 - 9
		out[i] = T(v)
		if isFloat[T]() && i%3 == 0 {
			out[i] = T(v) / 4
		}
	}
	return out
}

// assertEmptySliceOps: every slice op on zero elements (dst, and a, which may
// be nil) succeeds and writes nothing, and their sum is zero.
func assertEmptySliceOps[T cubridge.Float](t *testing.T, dst, a []T) {
	t.Helper()
	assert.NoError(t, cubridge.Add(dst, a, dst))
	assert.NoError(t, cubridge.Div(dst, dst, dst, 1))
	assert.NoError(t, cubridge.Axpy(2, dst, dst))
	assert.NoError(t, cubridge.Scale(2, dst))
	assert.NoError(t, cubridge.Fill(dst, 2))
	assert.NoError(t, cubridge.Convert([]int64{}, dst))
	s, err := cubridge.Sum(a)
	require.NoError(t, err)
	assert.Zero(t, s)
}

// assertEmptyBufferOps: a zero-length buffer copies and adds, has no minimum,
// sums to zero, and frees.
func assertEmptyBufferOps[T cubridge.Number](t *testing.T, b *cubridge.Buffer[T]) {
	t.Helper()
	assert.Equal(t, 0, b.Len())
	require.NoError(t, b.CopyFrom(nil))
	require.NoError(t, b.CopyTo([]T{}))
	require.NoError(t, cubridge.AddBuffer(b, b, b, nil))
	_, err := cubridge.MinBuffer(b, nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	sum, err := reduceAny("sum", "buffers", nil, nil, b, nil) // SumBuffer or SumIntBuffer
	require.NoError(t, err)
	assert.Zero(t, sum)
	require.NoError(t, b.Free())
}
