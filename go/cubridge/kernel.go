package cubridge

/*
#include <string.h>
#include "cubridge/bind.h"

// One cgo call: a declared kernel's arrays (views, by parameter: the slots
// of scalars are unused) and scalars, through the library's binding call.
static cubridge_status cbg_kernel_call(const cubridge_kernel* k, cubridge_view* views,
                                       const cubridge_scalar* scalars, cubridge_stream s) {
	cubridge_view* arrays[CUBRIDGE_KERNEL_MAX_PARAMS];
	for (int p = 0; p < k->nparams && p < CUBRIDGE_KERNEL_MAX_PARAMS; p++) {
		int kind = k->params[p].kind;
		int array = kind == CUBRIDGE_PARAM_IN || kind == CUBRIDGE_PARAM_OUT || kind == CUBRIDGE_PARAM_INOUT;
		arrays[p] = array ? &views[p] : NULL;
	}
	return cubridge_kernel_call(k, arrays, scalars, s, 0);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// Kernel is a kernel of your own, declared for cubridge's bindings (a .bind
// file, docs/bind.md) and compiled into your package. The functions that
// cubind generates from the declaration call it; use those. The library
// checks each call against the declaration (dtypes, shapes, overlap), runs
// it on its arrays' device and stream, ordered like this package's own
// operations, and stages host slices through device memory when the kernel
// runs on the GPU. Failures are *Error values (errors.Is matches the
// sentinels: ErrInvalidArgument, ErrUnsupportedDType, ...).
type Kernel struct {
	k      *C.cubridge_kernel
	name   string
	params []kernelParam
	dims   []string
}

type kernelParam struct {
	name    string
	kind    int   // C.CUBRIDGE_PARAM_*
	dims    []int // >= 0: a fixed size; < 0: the symbol -1-d
	setsDim int   // an int scalar's symbol, or -1
}

func (p *kernelParam) isArray() bool {
	return p.kind == C.CUBRIDGE_PARAM_IN || p.kind == C.CUBRIDGE_PARAM_OUT || p.kind == C.CUBRIDGE_PARAM_INOUT
}

// NewKernel wraps a declared kernel: desc is the address of the
// cubridge_kernel that cubind generated (the generated package passes it).
func NewKernel(desc unsafe.Pointer) *Kernel {
	k := (*C.cubridge_kernel)(desc)
	kn := &Kernel{k: k, name: C.GoString(k.name)}
	n := int(k.nparams)
	if n < 0 || n > C.CUBRIDGE_KERNEL_MAX_PARAMS || k.ndims < 0 || k.ndims > C.CUBRIDGE_KERNEL_MAX_DIMS {
		return kn // refused by the library at the first call, with its message
	}
	for _, cp := range unsafe.Slice(k.params, n) {
		p := kernelParam{name: C.GoString(cp.name), kind: int(cp.kind), setsDim: int(cp.sets_dim)}
		for i := 0; i < int(cp.ndim) && i < C.CUBRIDGE_KERNEL_MAX_NDIM; i++ {
			p.dims = append(p.dims, int(cp.dims[i]))
		}
		kn.params = append(kn.params, p)
	}
	if k.ndims > 0 {
		for _, d := range unsafe.Slice(k.dims, int(k.ndims)) {
			kn.dims = append(kn.dims, C.GoString(d))
		}
	}
	return kn
}

// Name returns the kernel's declared name.
func (k *Kernel) Name() string { return k.name }

// Arg is one argument of a Kernel call: a *Buffer, a Go slice (Slice), or a
// scalar (FloatScalar, IntScalar).
type Arg interface {
	kernelArg(name string) kernelArg
}

// kernelArg is what a Kernel call needs of an argument.
type kernelArg struct {
	res    arg              // a Buffer's resource (locked for the call)
	array  C.cubridge_array // a Buffer's runtime array
	data   unsafe.Pointer   // a Buffer's C memory, or a slice's Go memory (host)
	slice  bool
	kind   MemoryKind
	device int
	dtype  DType
	n      int
	scalar bool
	f      float64
	i      int64
	isInt  bool
}

func (b *Buffer[T]) kernelArg(name string) kernelArg {
	if b == nil {
		return kernelArg{res: b.arg(name)}
	}
	device := b.device
	if b.kind == HostMemory {
		device = -1
	}
	return kernelArg{res: b.arg(name), array: b.arr, data: b.ptr, kind: b.kind, device: device,
		dtype: DTypeOf[T](), n: b.n}
}

type sliceArg[T Number] []T

func (s sliceArg[T]) kernelArg(string) kernelArg {
	return kernelArg{data: slicePtr([]T(s)), slice: true, kind: HostMemory, device: -1,
		dtype: DTypeOf[T](), n: len(s)}
}

// Slice passes a Go slice (host memory) to a Kernel: on the GPU the kernel
// sees a device copy, staged in and (for what it writes) back before the
// call returns.
func Slice[T Number](s []T) Arg { return sliceArg[T](s) }

type scalarArg kernelArg

func (s scalarArg) kernelArg(string) kernelArg { return kernelArg(s) }

// FloatScalar passes a float scalar to a Kernel.
func FloatScalar(v float64) Arg { return scalarArg{scalar: true, f: v} }

// IntScalar passes an int scalar to a Kernel.
func IntScalar(v int64) Arg { return scalarArg{scalar: true, i: v, isInt: true} }

// kernelCall is the C side's memory of one call, pinned while C reads it.
type kernelCall struct {
	views   [C.CUBRIDGE_KERNEL_MAX_PARAMS]C.cubridge_view
	shapes  [C.CUBRIDGE_KERNEL_MAX_PARAMS][C.CUBRIDGE_KERNEL_MAX_NDIM]C.int64_t
	scalars [C.CUBRIDGE_KERNEL_MAX_PARAMS]C.cubridge_scalar
}

// Call runs the kernel on stream s (nil: the default stream) with args in
// declared order. dims
// gives the size of each dimension symbol of multi-dimensional arrays (-1:
// from the arrays' lengths); Buffers and slices are flat, and an array of
// declared shape [m,k] must have m*k elements.
func (k *Kernel) Call(s *Stream, dims []int, args ...Arg) error {
	op := k.name
	if len(args) != len(k.params) {
		return &Error{Op: op, Status: StatusInternal,
			Msg: fmt.Sprintf("%d arguments for %d parameters: regenerate the binding", len(args), len(k.params))}
	}
	sizes := make([]int, len(k.dims))
	for i := range sizes {
		sizes[i] = -1
		if i < len(dims) {
			sizes[i] = dims[i]
		}
	}
	ka := make([]kernelArg, len(args))
	var locks [maxHeld]arg
	nlocks := 0
	for i, a := range args {
		p := &k.params[i]
		if a == nil {
			return invalid(op, "argument '%s' is nil", p.name)
		}
		ka[i] = a.kernelArg(p.name)
		if ka[i].scalar == p.isArray() || (ka[i].scalar && ka[i].isInt != (p.kind == C.CUBRIDGE_PARAM_INT)) {
			return &Error{Op: op, Status: StatusInternal,
				Msg: fmt.Sprintf("argument '%s' is of the wrong kind: regenerate the binding", p.name)}
		}
		if ka[i].res.kind != "" { // a Buffer
			if nlocks == len(locks)-1 {
				return invalid(op, "more than %d Buffers in one call", len(locks)-1)
			}
			locks[nlocks] = ka[i].res
			nlocks++
		}
		if p.setsDim >= 0 && sizes[p.setsDim] < 0 {
			sizes[p.setsDim] = int(ka[i].i)
		}
	}
	h, sh, err := begin(op, s, locks[:nlocks]...)
	if err != nil {
		return err
	}
	defer h.release()
	c := new(kernelCall)
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(c)
	for i := range args {
		p, a := &k.params[i], &ka[i]
		if a.scalar {
			if a.isInt {
				*(*int64)(unsafe.Pointer(&c.scalars[i])) = a.i
			} else {
				*(*float64)(unsafe.Pointer(&c.scalars[i])) = a.f
			}
			continue
		}
		shape, err := k.shape(p, a.n, sizes)
		if err != nil {
			return err
		}
		v := &c.views[i]
		v.struct_size = C.size_t(unsafe.Sizeof(*v))
		v.data = a.data
		if a.slice && a.data != nil {
			pin.Pin(a.data)
		}
		v.dtype = C.int(a.dtype)
		v.ndim = C.int(len(shape))
		for d, size := range shape {
			c.shapes[i][d] = C.int64_t(size)
		}
		v.shape = &c.shapes[i][0]
		v.memory = C.int(a.kind)
		v.device = C.int(a.device)
		v.array = a.array
	}
	err = check(op, func() C.cubridge_status {
		return C.cbg_kernel_call(k.k, &c.views[0], &c.scalars[0], sh)
	})
	runtime.KeepAlive(args)
	if e, ok := err.(*Error); ok {
		e.Msg = strings.TrimPrefix(e.Msg, op+": ")
	}
	return err
}

// shape is the shape of array parameter p with n elements: its declared
// dimensions where they are known (fixed, given in dims, or sized by an int
// scalar), else (one dimension) n itself.
func (k *Kernel) shape(p *kernelParam, n int, sizes []int) ([]int, error) {
	shape := make([]int, len(p.dims))
	known, total := true, 1
	for i, d := range p.dims {
		switch {
		case d >= 0:
			shape[i] = d
		case sizes[-1-d] >= 0:
			shape[i] = sizes[-1-d]
		default:
			known = false
		}
		total *= shape[i]
	}
	if !known {
		if len(p.dims) == 1 {
			shape[0] = n
			return shape, nil
		}
		return nil, &Error{Op: k.name, Status: StatusInternal,
			Msg: fmt.Sprintf("the dimensions of '%s' are not given: regenerate the binding", p.name)}
	}
	if total != n {
		names := make([]string, len(p.dims))
		for i, d := range p.dims {
			if d >= 0 {
				names[i] = fmt.Sprint(d)
			} else {
				names[i] = k.dims[-1-d]
			}
		}
		return nil, invalid(k.name, "argument '%s' has %d elements, but %s[%s] is %v: %d elements",
			p.name, n, p.name, strings.Join(names, ","), shape, total)
	}
	return shape, nil
}
