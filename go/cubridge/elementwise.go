package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"math"
	"unsafe"
)

// elemOp is one elementwise C function. Both the slice (host.go) and the
// buffer (ops.go) front ends share elemOp; the slices go through callElem.
type elemOp int

const (
	opAdd elemOp = iota
	opSub
	opMul
	opDiv
	opAxpy
	opScale
	opFill
)

var elemOpNames = [...]string{"add", "sub", "mul", "div", "axpy", "scale", "fill"}

func (op elemOp) String() string { return elemOpNames[op] }

// callElem runs op on n elements: out = a OP b for add..div (scalar: div's
// zero value), y = scalar*a + y for axpy (out is y), out *= scalar for
// scale, out = scalar for fill.
func callElem(op elemOp, dt DType, a, b, out unsafe.Pointer, n int, scalar C.double, s C.cubridge_stream) C.cubridge_status {
	d, cn := C.int(dt), C.size_t(n)
	switch op {
	case opAdd:
		return C.cubridge_add(d, a, b, out, cn, s)
	case opSub:
		return C.cubridge_sub(d, a, b, out, cn, s)
	case opMul:
		return C.cubridge_mul(d, a, b, out, cn, s)
	case opDiv:
		return C.cubridge_div(d, a, b, out, cn, scalar, s)
	case opAxpy:
		return C.cubridge_axpy(d, scalar, a, out, cn, s)
	case opScale:
		return C.cubridge_scale(d, scalar, out, cn, s)
	case opFill:
		return C.cubridge_fill(d, scalar, out, cn, s)
	}
	return C.CUBRIDGE_ERR_INTERNAL
}

// toScalar converts a scalar argument to the C ABI's double, refusing int64
// values that a double cannot hold exactly (beyond 2^53).
func toScalar[T Number](op, name string, v T) (C.double, error) {
	f := float64(v)
	if DTypeOf[T]() == Int64 && (f >= math.MaxInt64 || T(f) != v) {
		return 0, invalid(op, "%s = %v is not exactly representable as a float64", name, v)
	}
	return C.double(f), nil
}

// slicePtr returns the address of s's first element (nil for a nil slice),
// to pass to C for the duration of one call.
func slicePtr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

// partialOverlap reports whether two byte ranges overlap without being the
// same range (exact aliasing is allowed by every op).
func partialOverlap(p unsafe.Pointer, pn uintptr, q unsafe.Pointer, qn uintptr) bool {
	a, b := uintptr(p), uintptr(q)
	if pn == 0 || qn == 0 || (a == b && pn == qn) {
		return false
	}
	return a < b+qn && b < a+pn
}
