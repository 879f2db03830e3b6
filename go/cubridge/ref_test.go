package cubridge_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cubridge/cubridge/go/cubridge"
)

// Pure-Go references for every op, used by the tests, the fuzz test and
// the vector runner.

func isNaN[T cubridge.Number](v T) bool { return v != v }

func isFloat[T cubridge.Number]() bool {
	d := cubridge.DTypeOf[T]()
	return d == cubridge.Float32 || d == cubridge.Float64
}

// same reports whether two values are equal, NaN equal to NaN.
func same[T cubridge.Number](a, b T) bool { return a == b || (isNaN(a) && isNaN(b)) }

// assertSame checks got == want elementwise (NaN equal to NaN).
func assertSame[T cubridge.Number](t testing.TB, want, got []T, msgAndArgs ...any) bool {
	t.Helper()
	if !assert.Len(t, got, len(want), msgAndArgs...) {
		return false
	}
	for i := range want {
		if !same(want[i], got[i]) {
			return assert.Failf(t, "values differ", "element %d: want %v, got %v (want %v, got %v)",
				append([]any{i, want[i], got[i], want, got}, msgAndArgs...)...)
		}
	}
	return true
}

func refBinary[T cubridge.Number](op string, a, b []T, zero T) []T {
	out := make([]T, len(a))
	for i := range a {
		switch op {
		case "add":
			out[i] = a[i] + b[i]
		case "sub":
			out[i] = a[i] - b[i]
		case "mul":
			out[i] = a[i] * b[i]
		case "div":
			if b[i] == 0 {
				out[i] = zero
			} else {
				out[i] = a[i] / b[i] // Go: MinInt / -1 == MinInt, like the library
			}
		default:
			panic("refBinary: " + op)
		}
	}
	return out
}

func refAxpy[T cubridge.Number](alpha T, x, y []T) []T {
	out := make([]T, len(y))
	for i := range y {
		out[i] = T(alpha*x[i]) + y[i] // T(...) forbids a fused multiply-add
	}
	return out
}

func refScale[T cubridge.Number](alpha T, x []T) []T {
	out := make([]T, len(x))
	for i := range x {
		out[i] = alpha * x[i]
	}
	return out
}

// refTerm is the i-th term of a sum (y nil: x[i]) or of a dot (x[i]*y[i]),
// computed in R: float64 for a float sum, int64 (wrapping) for an integer one.
func refTerm[R float64 | int64, T cubridge.Number](x, y []T, i int) R {
	v := R(x[i])
	if y != nil {
		v *= R(y[i])
	}
	return v
}

// refSum returns the float64 sum and a bound on the rounding error of any
// summation order.
func refSum[T cubridge.Float](x, y []T) (sum, tol float64) {
	var abs float64
	for i := range x {
		v := refTerm[float64](x, y, i)
		sum += v
		abs += math.Abs(v)
	}
	return sum, 2 * float64(len(x)+1) * abs * 0x1p-53
}

func refSumInt[T cubridge.Integer](x, y []T) int64 {
	var s int64
	for i := range x {
		s += refTerm[int64](x, y, i)
	}
	return s
}

func refMinMax[T cubridge.Number](x []T, isMax bool) T {
	m := x[0]
	for _, v := range x {
		switch {
		case isNaN(m):
			return m
		case isNaN(v):
			m = v
		case isMax && v > m, !isMax && v < m:
			m = v
		}
	}
	return m
}

// refConvert converts like the library: float to integer truncates,
// saturates and maps NaN to 0; the rest as Go converts.
func refConvert[D, S cubridge.Number](src []S) []D {
	out := make([]D, len(src))
	for i, v := range src {
		out[i] = convertValue[D](v)
	}
	return out
}

func convertValue[D, S cubridge.Number](v S) D {
	if !isFloat[S]() || isFloat[D]() {
		return D(v)
	}
	f := float64(v)
	bits := cubridge.DTypeOf[D]().Size() * 8
	hi := math.Ldexp(1, bits-1)
	switch {
	case f != f:
		return 0
	case f >= hi:
		return D(int64(uint64(1)<<(bits-1) - 1)) // MaxInt32 or MaxInt64
	case f <= -hi:
		return D(-int64(uint64(1)<<(bits-1)-1) - 1) // MinInt32 or MinInt64
	}
	return D(int64(f))
}
