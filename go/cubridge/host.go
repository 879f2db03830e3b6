package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"context"
	"unsafe"
)

// chunkLen is how many elements the Context variants process between two
// looks at their context.
const chunkLen = 1 << 22

// span is a named slice operand of a host-path call.
type span[T Number] struct {
	name string
	s    []T
}

// hostElem runs op over Go slices: out is written (and read by axpy), ins
// are read. Lengths must match; an input may alias out exactly but not
// overlap it partially. With a cancellable ctx the work runs in chunks of
// chunkLen elements and stops between chunks once ctx is done.
func hostElem[T Number](ctx context.Context, op elemOp, scalar C.double, out span[T], ins ...span[T]) error {
	name := op.String()
	n := len(out.s)
	size := unsafe.Sizeof(*new(T))
	for _, in := range ins {
		if len(in.s) != n {
			return invalid(name, "%s has %d elements, %s has %d", in.name, len(in.s), out.name, n)
		}
		if partialOverlap(slicePtr(in.s), uintptr(n)*size, slicePtr(out.s), uintptr(n)*size) {
			return invalid(name, "%s and %s overlap partially", in.name, out.name)
		}
	}
	dt := DTypeOf[T]()
	return chunked(ctx, name, n, func(lo, hi int) error {
		var a, b unsafe.Pointer
		if len(ins) > 0 {
			a = slicePtr(ins[0].s[lo:hi])
		}
		if len(ins) > 1 {
			b = slicePtr(ins[1].s[lo:hi])
		}
		o := slicePtr(out.s[lo:hi])
		return check(name, func() C.cubridge_status { return callElem(op, dt, a, b, o, hi-lo, scalar, nil) })
	})
}

// chunked calls f on [0, n) at once when ctx cannot be cancelled, else in
// pieces of chunkLen, checking ctx before each piece. Nothing is called for
// n == 0.
func chunked(ctx context.Context, op string, n int, f func(lo, hi int) error) error {
	if ctx == nil {
		return invalid(op, "nil context")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if ctx.Done() == nil {
		return f(0, n)
	}
	for lo := 0; lo < n; lo += chunkLen {
		if lo > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := f(lo, min(lo+chunkLen, n)); err != nil {
			return err
		}
	}
	return nil
}

// Add sets dst[i] = a[i] + b[i]. All three slices must have the same length;
// dst may be a or b itself (but must not overlap them partially). Integer
// arithmetic wraps around.
func Add[T Number](dst, a, b []T) error { return AddContext(context.Background(), dst, a, b) }

// AddContext is Add that stops early, returning ctx's error, when ctx is
// done. Long inputs are processed in chunks of a few million elements and
// ctx is checked between chunks, so dst may then be partly written.
func AddContext[T Number](ctx context.Context, dst, a, b []T) error {
	return hostElem(ctx, opAdd, 0, span[T]{"dst", dst}, span[T]{"a", a}, span[T]{"b", b})
}

// Sub sets dst[i] = a[i] - b[i], with the rules of Add.
func Sub[T Number](dst, a, b []T) error { return SubContext(context.Background(), dst, a, b) }

// SubContext is Sub with cancellation, as AddContext.
func SubContext[T Number](ctx context.Context, dst, a, b []T) error {
	return hostElem(ctx, opSub, 0, span[T]{"dst", dst}, span[T]{"a", a}, span[T]{"b", b})
}

// Mul sets dst[i] = a[i] * b[i], with the rules of Add.
func Mul[T Number](dst, a, b []T) error { return MulContext(context.Background(), dst, a, b) }

// MulContext is Mul with cancellation, as AddContext.
func MulContext[T Number](ctx context.Context, dst, a, b []T) error {
	return hostElem(ctx, opMul, 0, span[T]{"dst", dst}, span[T]{"a", a}, span[T]{"b", b})
}

// Div sets dst[i] = a[i] / b[i], or zero where b[i] == 0, with the rules of
// Add. Integer division truncates toward zero; MinInt / -1 wraps to MinInt.
func Div[T Number](dst, a, b []T, zero T) error {
	return DivContext(context.Background(), dst, a, b, zero)
}

// DivContext is Div with cancellation, as AddContext.
func DivContext[T Number](ctx context.Context, dst, a, b []T, zero T) error {
	z, err := toScalar("div", "zero", zero)
	if err != nil {
		return err
	}
	return hostElem(ctx, opDiv, z, span[T]{"dst", dst}, span[T]{"a", a}, span[T]{"b", b})
}

// Axpy sets y[i] = alpha*x[i] + y[i]. x and y must have the same length.
// Floats round after the multiply and after the add (no fused multiply-add),
// so results are the same on every backend.
func Axpy[T Number](alpha T, x, y []T) error {
	return AxpyContext(context.Background(), alpha, x, y)
}

// AxpyContext is Axpy with cancellation, as AddContext.
func AxpyContext[T Number](ctx context.Context, alpha T, x, y []T) error {
	s, err := toScalar("axpy", "alpha", alpha)
	if err != nil {
		return err
	}
	return hostElem(ctx, opAxpy, s, span[T]{"y", y}, span[T]{"x", x})
}

// Scale sets x[i] = alpha * x[i].
func Scale[T Number](alpha T, x []T) error { return ScaleContext(context.Background(), alpha, x) }

// ScaleContext is Scale with cancellation, as AddContext.
func ScaleContext[T Number](ctx context.Context, alpha T, x []T) error {
	s, err := toScalar("scale", "alpha", alpha)
	if err != nil {
		return err
	}
	return hostElem(ctx, opScale, s, span[T]{"x", x})
}

// Fill sets every element of x to value.
func Fill[T Number](x []T, value T) error { return FillContext(context.Background(), x, value) }

// FillContext is Fill with cancellation, as AddContext.
func FillContext[T Number](ctx context.Context, x []T, value T) error {
	s, err := toScalar("fill", "value", value)
	if err != nil {
		return err
	}
	return hostElem(ctx, opFill, s, span[T]{"x", x})
}

// Convert sets dst[i] = D(src[i]). Float to integer truncates toward zero,
// saturates at the integer's limits and turns NaN into 0; integer to integer
// wraps; everything else rounds to nearest.
func Convert[D, S Number](dst []D, src []S) error {
	return ConvertContext(context.Background(), dst, src)
}

// ConvertContext is Convert with cancellation, as AddContext.
func ConvertContext[D, S Number](ctx context.Context, dst []D, src []S) error {
	n := len(dst)
	if len(src) != n {
		return invalid("convert", "src has %d elements, dst has %d", len(src), n)
	}
	dn, sn := uintptr(n)*unsafe.Sizeof(*new(D)), uintptr(n)*unsafe.Sizeof(*new(S))
	if partialOverlap(slicePtr(src), sn, slicePtr(dst), dn) {
		return invalid("convert", "src and dst overlap partially")
	}
	dd, sd := C.int(DTypeOf[D]()), C.int(DTypeOf[S]())
	return chunked(ctx, "convert", n, func(lo, hi int) error {
		s, d := slicePtr(src[lo:hi]), slicePtr(dst[lo:hi])
		return check("convert", func() C.cubridge_status {
			return C.cubridge_convert(sd, s, dd, d, C.size_t(hi-lo), nil)
		})
	})
}
