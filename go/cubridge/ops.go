package cubridge

// #include "cubridge/cubridge.h"
import "C"

import "unsafe"

// operand is a named buffer operand of a device-path call.
type operand[T Number] struct {
	name string
	b    *Buffer[T]
}

// bufferElem runs op over buffers on stream s; see hostElem for the roles of
// out and ins. Buffers never overlap partially, so only lengths are checked.
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
	var a, b unsafe.Pointer
	for i, in := range ins {
		if in.b.n != n {
			return invalid(name, "%s has %d elements, %s has %d", in.name, in.b.n, out.name, n)
		}
		if i == 0 {
			a = in.b.ptr
		} else {
			b = in.b.ptr
		}
	}
	dt, o, dev := DTypeOf[T](), out.b.ptr, sameDevice(out, ins)
	return check(name, func() C.cubridge_status {
		if dev >= 0 {
			// Every operand is device memory of dev: the op skips its pointer lookups.
			if st := C.cubridge_assume_device(C.int(dev)); st != C.CUBRIDGE_OK {
				return st
			}
		}
		return callElem(op, dt, a, b, o, n, scalar, sh)
	})
}

// sameDevice returns the device of the operands when all are device memory
// of one device (the C library may then take that as known), else -1 (it
// looks each pointer up and refuses a mix of devices with a message).
func sameDevice[T Number](out operand[T], ins []operand[T]) int {
	dev := out.b.device
	if out.b.kind != DeviceMemory {
		return -1
	}
	for _, in := range ins {
		if in.b.kind != DeviceMemory || in.b.device != dev {
			return -1
		}
	}
	return dev
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
	dd, sd := C.int(DTypeOf[D]()), C.int(DTypeOf[S]())
	return srcToDst("convert", dst, src, s, func(sh C.cubridge_stream) C.cubridge_status {
		return C.cubridge_convert(sd, src.ptr, dd, dst.ptr, C.size_t(dst.n), sh)
	})
}

// srcToDst runs call, which writes dst from src (Copy, ConvertBuffer), on
// stream s: both buffers locked for the call and of the same length.
func srcToDst[D, S Number](op string, dst *Buffer[D], src *Buffer[S], s *Stream, call func(C.cubridge_stream) C.cubridge_status) error {
	h, sh, err := begin(op, s, dst.arg("dst"), src.arg("src"))
	if err != nil {
		return err
	}
	defer h.release()
	if src.n != dst.n {
		return invalid(op, "src has %d elements, dst has %d", src.n, dst.n)
	}
	return check(op, func() C.cubridge_status { return call(sh) })
}
