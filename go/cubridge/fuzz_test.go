package cubridge_test

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// FuzzHostOps runs one op of the host (slice) path on fuzzed bits and
// compares it with the pure-Go reference. op picks the operation, dtype the
// element type; data is decoded as little-endian elements: alpha first, then
// a and b, half of the rest each. The seed corpus is in testdata/fuzz.
func FuzzHostOps(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte("\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80@"))
	f.Fuzz(func(t *testing.T, op, dtype uint8, data []byte) {
		switch dtype % 4 {
		case 0:
			fuzzOp(t, op, decode[float32](data))
		case 1:
			fuzzOp(t, op, decode[float64](data))
		case 2:
			fuzzOp(t, op, decode[int32](data))
		case 3:
			fuzzOp(t, op, decode[int64](data))
		}
	})
}

// decode reads little-endian values of T from data.
func decode[T cubridge.Number](data []byte) []T {
	size := int(unsafe.Sizeof(*new(T)))
	out := make([]T, len(data)/size)
	for i := range out {
		chunk := data[i*size:]
		var v T
		switch p := any(&v).(type) {
		case *float32:
			*p = math.Float32frombits(binary.LittleEndian.Uint32(chunk))
		case *float64:
			*p = math.Float64frombits(binary.LittleEndian.Uint64(chunk))
		case *int32:
			*p = int32(binary.LittleEndian.Uint32(chunk))
		case *int64:
			*p = int64(binary.LittleEndian.Uint64(chunk))
		}
		out[i] = v
	}
	return out
}

var fuzzOps = []string{"add", "sub", "mul", "div", "axpy", "scale", "fill", "sum", "dot", "min", "max", "convert"}

func fuzzOp[T cubridge.Number](t *testing.T, opByte uint8, vals []T) {
	var alpha T
	if len(vals) > 0 {
		alpha, vals = vals[0], vals[1:]
	}
	n := len(vals) / 2
	a, b := vals[:n], vals[n:2*n]
	op := fuzzOps[int(opByte)%len(fuzzOps)]
	exact := cubridge.DTypeOf[T]() != cubridge.Int64 || alpha == T(float64(alpha)) && float64(alpha) < math.MaxInt64
	switch op {
	case "add", "sub", "mul", "div":
		got := make([]T, n)
		err := sliceBinary(op, got, a, b, alpha)
		if op == "div" && !exact {
			assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
			return
		}
		require.NoError(t, err)
		assertSame(t, refBinary(op, a, b, alpha), got, op)
	case "axpy", "scale", "fill":
		y := append([]T(nil), b...)
		var want []T
		var err error
		switch op {
		case "axpy":
			want, err = refAxpy(alpha, a, y), cubridge.Axpy(alpha, a, y)
		case "scale":
			want, err = refScale(alpha, y), cubridge.Scale(alpha, y)
		case "fill":
			want = make([]T, n)
			for i := range want {
				want[i] = alpha
			}
			err = cubridge.Fill(y, alpha)
		}
		if !exact {
			assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, "int64 scalar beyond 2^53")
			return
		}
		require.NoError(t, err)
		assertSame(t, want, y, op)
	case "min", "max":
		got, err := sliceMinMax(op, a)
		if n == 0 {
			assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
			return
		}
		require.NoError(t, err)
		want := refMinMax(a, op == "max")
		assert.True(t, same(want, got), "%s: want %v, got %v", op, want, got)
	case "sum", "dot":
		var y []T
		if op == "dot" {
			y = b
		}
		switch xs := any(a).(type) {
		case []float32:
			checkFloatSum(t, op, xs, any(y).([]float32))
		case []float64:
			checkFloatSum(t, op, xs, any(y).([]float64))
		default:
			got, err := reduce[int64](op, "slices", a, y, nil, nil)
			require.NoError(t, err)
			assert.Equal(t, refSumDot(a, y), got, op)
		}
	case "convert":
		switch cubridge.DTypeOf[T]() {
		case cubridge.Float32:
			checkConvert[float64](t, a)
		case cubridge.Float64:
			checkConvert[int32](t, a)
		case cubridge.Int32:
			checkConvert[int64](t, a)
		case cubridge.Int64:
			checkConvert[float32](t, a)
		}
		checkConvert[int32](t, a)
		checkConvert[float32](t, a)
	}
}

func checkConvert[D, S cubridge.Number](t *testing.T, src []S) {
	got := make([]D, len(src))
	require.NoError(t, cubridge.Convert(got, src))
	assertSame(t, refConvert[D](src), got, "convert %v -> %v", cubridge.DTypeOf[S](), cubridge.DTypeOf[D]())
}

// checkFloatSum compares a float sum or dot with the reference, within the
// rounding error of any summation order. Where overflow makes the result
// depend on the order, only a NaN that every order produces is checked.
func checkFloatSum[T cubridge.Float](t *testing.T, op string, x, y []T) {
	got, err := reduce[float64](op, "slices", x, y, nil, nil)
	require.NoError(t, err)
	want, tol := refSum(x, y)
	if !math.IsInf(tol, 0) && !math.IsNaN(tol) {
		assert.InDelta(t, want, got, tol, op)
		return
	}
	var nan, pos, neg bool
	for i := range x {
		v := refTerm[float64](x, y, i)
		nan = nan || math.IsNaN(v)
		pos = pos || math.IsInf(v, 1)
		neg = neg || math.IsInf(v, -1)
	}
	if nan || pos && neg {
		assert.True(t, math.IsNaN(got), "%s: want NaN, got %v", op, got)
	}
}
