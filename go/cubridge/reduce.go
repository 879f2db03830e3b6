package cubridge

// #include "cubridge/cubridge.h"
import "C"

import "unsafe"

// Reductions return their result to Go memory and return only once it is
// there, on every backend. Sums and dots accumulate in float64 for float
// inputs and in int64 (wrapping) for integer inputs; results are the same run
// to run, but the order of the float additions is the library's, so they
// may differ from a sequential loop in the last bits.

type reduceOp int

const (
	opSum reduceOp = iota
	opDot
	opMin
	opMax
)

var reduceOpNames = [...]string{"sum", "dot", "min", "max"}

func (op reduceOp) String() string { return reduceOpNames[op] }

func callReduce(op reduceOp, dt DType, x, y unsafe.Pointer, n int, result unsafe.Pointer, s C.cubridge_stream) C.cubridge_status {
	d, cn := C.int(dt), C.size_t(n)
	switch op {
	case opSum:
		return C.cubridge_sum(d, x, cn, result, s)
	case opDot:
		return C.cubridge_dot(d, x, y, cn, result, s)
	case opMin:
		return C.cubridge_min(d, x, cn, result, s)
	case opMax:
		return C.cubridge_max(d, x, cn, result, s)
	}
	return C.CUBRIDGE_ERR_INTERNAL
}

// hostReduce reduces Go slices into a result of type R.
func hostReduce[R any, T Number](op reduceOp, x, y []T, dot bool) (R, error) {
	var r R
	name := op.String()
	if dot && len(y) != len(x) {
		return r, invalid(name, "y has %d elements, x has %d", len(y), len(x))
	}
	dt := DTypeOf[T]()
	xp, yp, n := slicePtr(x), slicePtr(y), len(x)
	err := check(name, func() C.cubridge_status {
		return callReduce(op, dt, xp, yp, n, unsafe.Pointer(&r), nil)
	})
	return r, err
}

// reduceCalls maps the reductions to what the runtime's call runs.
var reduceCalls = [...]callOp{opSum: callSum, opDot: callDot, opMin: callMin, opMax: callMax}

// bufferReduce reduces buffers on stream s into a result of type R, after
// the work that last wrote them.
func bufferReduce[R any, T Number](op reduceOp, x, y *Buffer[T], s *Stream) (R, error) {
	var r R
	name := op.String()
	args := []arg{x.arg("x")}
	if op == opDot {
		args = append(args, y.arg("y"))
	}
	h, sh, err := begin(name, s, args...)
	if err != nil {
		return r, err
	}
	defer h.release()
	c := call{op: reduceCalls[op], result: unsafe.Pointer(&r)}
	add(&c, x, false)
	if op == opDot {
		if y.n != x.n {
			return r, invalid(name, "y has %d elements, x has %d", y.n, x.n)
		}
		add(&c, y, false)
	}
	err = check(name, func() C.cubridge_status { return c.run(sh) })
	return r, err
}

// Sum returns the sum of x's elements, accumulated in float64 (0 for an
// empty x).
func Sum[T Float](x []T) (float64, error) { return hostReduce[float64](opSum, x, nil, false) }

// SumInt returns the sum of x's elements, accumulated in int64 with
// wrap-around (0 for an empty x).
func SumInt[T Integer](x []T) (int64, error) { return hostReduce[int64](opSum, x, nil, false) }

// Dot returns the sum of x[i]*y[i], products and sum in float64. x and y
// must have the same length.
func Dot[T Float](x, y []T) (float64, error) { return hostReduce[float64](opDot, x, y, true) }

// DotInt returns the sum of x[i]*y[i] in int64 with wrap-around.
func DotInt[T Integer](x, y []T) (int64, error) { return hostReduce[int64](opDot, x, y, true) }

// Min returns the smallest element of x; a NaN anywhere makes it NaN. An
// empty x is ErrInvalidArgument.
func Min[T Number](x []T) (T, error) { return hostReduce[T](opMin, x, nil, false) }

// Max returns the largest element of x, as Min.
func Max[T Number](x []T) (T, error) { return hostReduce[T](opMax, x, nil, false) }

// SumBuffer is Sum of a buffer, run on stream s (nil: the default stream).
// It returns once the result is known, after the work queued before it on s.
func SumBuffer[T Float](x *Buffer[T], s *Stream) (float64, error) {
	return bufferReduce[float64](opSum, x, nil, s)
}

// SumIntBuffer is SumInt of a buffer, as SumBuffer.
func SumIntBuffer[T Integer](x *Buffer[T], s *Stream) (int64, error) {
	return bufferReduce[int64](opSum, x, nil, s)
}

// DotBuffer is Dot of two buffers, as SumBuffer.
func DotBuffer[T Float](x, y *Buffer[T], s *Stream) (float64, error) {
	return bufferReduce[float64](opDot, x, y, s)
}

// DotIntBuffer is DotInt of two buffers, as SumBuffer.
func DotIntBuffer[T Integer](x, y *Buffer[T], s *Stream) (int64, error) {
	return bufferReduce[int64](opDot, x, y, s)
}

// MinBuffer is Min of a buffer, as SumBuffer.
func MinBuffer[T Number](x *Buffer[T], s *Stream) (T, error) {
	return bufferReduce[T](opMin, x, nil, s)
}

// MaxBuffer is Max of a buffer, as SumBuffer.
func MaxBuffer[T Number](x *Buffer[T], s *Stream) (T, error) {
	return bufferReduce[T](opMax, x, nil, s)
}
