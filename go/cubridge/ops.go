package cubridge

// #include "cubridge/cubridge.h"
import "C"

// operand is a named buffer operand of a device-path call.
type operand[T Number] struct {
	name string
	b    *Buffer[T]
}

// elemCalls maps the elementwise ops to what the runtime's call runs.
var elemCalls = [...]callOp{
	opAdd: callAdd, opSub: callSub, opMul: callMul, opDiv: callDiv,
	opAxpy: callAxpy, opScale: callScale, opFill: callFill,
}

// bufferElem runs op over buffers on stream s; see hostElem for the roles of
// out and ins. Buffers never overlap partially, so only lengths are checked.
// The runtime orders the op after the buffers' earlier work and records it.
func bufferElem[T Number](op elemOp, s *Stream, scalar C.double, out operand[T], ins ...operand[T]) error {
	name := op.String()
	var args [3]arg
	args[0] = out.b.arg(out.name)
	for i, in := range ins {
		args[i+1] = in.b.arg(in.name)
	}
	h, sh, err := begin(name, s, args[:len(ins)+1]...)
	if err != nil {
		return err
	}
	defer h.release()
	n := out.b.n
	c := call{op: elemCalls[op], scalar: scalar}
	add(&c, out.b, true)
	for _, in := range ins {
		if in.b.n != n {
			return invalid(name, "%s has %d elements, %s has %d", in.name, in.b.n, out.name, n)
		}
		add(&c, in.b, false)
	}
	return check(name, func() C.cubridge_status { return c.run(sh) })
}

// AddBuffer queues dst = a + b on stream s (nil: the default stream). The
// buffers must have the same length; dst may be a or b. Like every buffer
// op it is asynchronous on the GPU backend: errors of the running kernel
// show up at the next synchronizing call.
func AddBuffer[T Number](dst, a, b *Buffer[T], s *Stream) error {
	return bufferElem(opAdd, s, 0, operand[T]{"dst", dst}, operand[T]{"a", a}, operand[T]{"b", b})
}

// SubBuffer queues dst = a - b on stream s, as AddBuffer.
func SubBuffer[T Number](dst, a, b *Buffer[T], s *Stream) error {
	return bufferElem(opSub, s, 0, operand[T]{"dst", dst}, operand[T]{"a", a}, operand[T]{"b", b})
}

// MulBuffer queues dst = a * b on stream s, as AddBuffer.
func MulBuffer[T Number](dst, a, b *Buffer[T], s *Stream) error {
	return bufferElem(opMul, s, 0, operand[T]{"dst", dst}, operand[T]{"a", a}, operand[T]{"b", b})
}

// DivBuffer queues dst = a / b (zero where b is 0) on stream s, as Div and
// AddBuffer.
func DivBuffer[T Number](dst, a, b *Buffer[T], zero T, s *Stream) error {
	z, err := toScalar("div", "zero", zero)
	if err != nil {
		return err
	}
	return bufferElem(opDiv, s, z, operand[T]{"dst", dst}, operand[T]{"a", a}, operand[T]{"b", b})
}

// AxpyBuffer queues y = alpha*x + y on stream s, as Axpy and AddBuffer.
func AxpyBuffer[T Number](alpha T, x, y *Buffer[T], s *Stream) error {
	a, err := toScalar("axpy", "alpha", alpha)
	if err != nil {
		return err
	}
	return bufferElem(opAxpy, s, a, operand[T]{"y", y}, operand[T]{"x", x})
}

// ScaleBuffer queues x = alpha * x on stream s, as AddBuffer.
func ScaleBuffer[T Number](alpha T, x *Buffer[T], s *Stream) error {
	a, err := toScalar("scale", "alpha", alpha)
	if err != nil {
		return err
	}
	return bufferElem(opScale, s, a, operand[T]{"x", x})
}

// FillBuffer queues x[i] = value on stream s, as AddBuffer.
func FillBuffer[T Number](x *Buffer[T], value T, s *Stream) error {
	v, err := toScalar("fill", "value", value)
	if err != nil {
		return err
	}
	return bufferElem(opFill, s, v, operand[T]{"x", x})
}

// ConvertBuffer queues dst = D(src) on stream s, as Convert and AddBuffer.
func ConvertBuffer[D, S Number](dst *Buffer[D], src *Buffer[S], s *Stream) error {
	return srcToDst("convert", dst, src, s, callConvert)
}

// srcToDst runs op, which writes dst from src (Copy, ConvertBuffer), on
// stream s: both buffers locked for the call and of the same length.
func srcToDst[D, S Number](name string, dst *Buffer[D], src *Buffer[S], s *Stream, op callOp) error {
	h, sh, err := begin(name, s, dst.arg("dst"), src.arg("src"))
	if err != nil {
		return err
	}
	defer h.release()
	if src.n != dst.n {
		return invalid(name, "src has %d elements, dst has %d", src.n, dst.n)
	}
	c := call{op: op}
	add(&c, dst, true)
	add(&c, src, false)
	return check(name, func() C.cubridge_status { return c.run(sh) })
}
