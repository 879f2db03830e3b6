package cubridge

// #include "cubridge/runtime.h"
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// MemoryKind says where a Buffer's memory lives.
type MemoryKind int

// The kinds of memory. On the CPU backend every kind is ordinary host memory.
const (
	HostMemory    MemoryKind = C.CUBRIDGE_MEMORY_HOST    // pageable host memory (Go slices)
	DeviceMemory  MemoryKind = C.CUBRIDGE_MEMORY_DEVICE  // device memory
	ManagedMemory MemoryKind = C.CUBRIDGE_MEMORY_MANAGED // managed (unified) memory
	PinnedMemory  MemoryKind = C.CUBRIDGE_MEMORY_PINNED  // page-locked host memory
)

// String returns the library's name of k ("host", ...), or "memory(N)".
func (k MemoryKind) String() string {
	return libraryName(C.cubridge_memory_name(C.int(k)), "memory", int(k))
}

// HostDevice is the device number of the host, for Prefetch.
const HostDevice = -1

// Buffer is memory allocated by the library: n elements of T on the device,
// in managed memory or in pinned host memory. Its memory is not Go memory;
// move data in and out with CopyFrom, CopyTo and Copy.
//
// A Buffer is an array of the library's runtime (cubridge/runtime.h), as a
// Python cubridge.Array is: it knows when it is ready. An operation on a
// stream waits, on the device, for the work that last wrote the buffer on
// another stream (and a write also for the other streams' reads), through
// events, never a device-wide synchronization; and the buffer's memory is
// reused, after Free or by the garbage collector, only once every operation
// of this package that used it is done, whatever streams they ran on. Device
// memory comes from the library's stream-ordered pool of its device: freed
// blocks are reused without a CUDA call on the stream of their last use (the
// default stream or one of NewStream), or behind the event of their last use
// on another library's stream (StreamFromHandle). Work that this package did
// not queue (another library's kernels on the buffer's memory) is the
// caller's to order.
//
// Free a Buffer when done with it. A Buffer that becomes unreachable is
// freed by the garbage collector as a safety net, but GPU memory is scarcer
// than the collector knows. A Buffer is safe for use by many goroutines;
// Free waits for calls that are using the buffer to return, after which every
// use reports ErrInvalidArgument.
type Buffer[T Number] struct {
	res     resource
	arr     C.cubridge_array // the runtime's array: the memory and its uses; nil after Free
	ptr     unsafe.Pointer   // its C memory; nil when n == 0 or after Free
	n       int
	kind    MemoryKind
	device  int // the CUDA device (0 on the CPU backend)
	cleanup runtime.Cleanup
}

// AllocOption configures an allocation: OnDevice, OnStream.
type AllocOption func(*allocConfig)

type allocConfig struct {
	device int // -1: the stream's device, else device 0 (the current one of the C library)
	stream *Stream
}

// OnDevice allocates device memory on CUDA device d (default: the device of
// the OnStream stream, else device 0). Managed and pinned memory is reachable
// from every device: for them d is only checked. The CPU backend has one
// device, 0, and refuses any other with ErrInvalidArgument.
func OnDevice(d int) AllocOption { return func(c *allocConfig) { c.device = d } }

// OnStream allocates (and later frees) the buffer in order on stream s: the
// memory is usable at once by work on s, by other streams after ordering
// with it.
func OnStream(s *Stream) AllocOption { return func(c *allocConfig) { c.stream = s } }

// NewDevice allocates a buffer of n elements in device memory.
func NewDevice[T Number](n int, opts ...AllocOption) (*Buffer[T], error) {
	return newBuffer[T](DeviceMemory, n, opts)
}

// NewManaged allocates a buffer of n elements in managed memory, which the
// host and the device may both touch. The library refuses a request larger
// than the device's free memory with ErrOutOfMemory.
func NewManaged[T Number](n int, opts ...AllocOption) (*Buffer[T], error) {
	return newBuffer[T](ManagedMemory, n, opts)
}

// NewPinned allocates a buffer of n elements in pinned (page-locked) host
// memory, which copies to and from the device fastest and asynchronously.
// Every device can use it; OnDevice only checks the device it names.
func NewPinned[T Number](n int, opts ...AllocOption) (*Buffer[T], error) {
	return newBuffer[T](PinnedMemory, n, opts)
}

func newBuffer[T Number](kind MemoryKind, n int, opts []AllocOption) (*Buffer[T], error) {
	size := int(unsafe.Sizeof(*new(T)))
	if n < 0 {
		return nil, invalid("malloc", "negative length %d", n)
	}
	if n > int(^uint(0)>>1)/size {
		return nil, &Error{Op: "malloc", Status: StatusOutOfMemory,
			Msg: fmt.Sprintf("%d elements of %d bytes overflow", n, size)}
	}
	cfg := allocConfig{device: -1}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.device < -1 {
		return nil, invalid("malloc", "device %d is not a device", cfg.device)
	}
	h, sh, err := begin("malloc", cfg.stream)
	if err != nil {
		return nil, err
	}
	defer h.release()
	device := cfg.device
	var arr C.cubridge_array
	var p unsafe.Pointer
	if err := check("malloc", func() C.cubridge_status {
		if device == -1 {
			var d C.int
			if sh != nil {
				if st := C.cubridge_stream_device(sh, &d); st != C.CUBRIDGE_OK {
					return st
				}
			}
			device = int(d) // no stream: device 0
		}
		return createArray(kind, n*size, device, sh, &arr, &p)
	}); err != nil {
		return nil, err
	}
	b := &Buffer[T]{arr: arr, ptr: p, n: n, kind: kind, device: device}
	b.res.init()
	b.res.array = arr
	b.cleanup = runtime.AddCleanup(b, func(a C.cubridge_array) { C.cubridge_array_destroy(a) }, arr)
	return b, nil
}

// Device returns the CUDA device b was allocated on (0 on the CPU backend,
// and for a nil Buffer).
func (b *Buffer[T]) Device() int {
	if b == nil {
		return 0
	}
	return b.device
}

// Len returns the number of elements in b (0 for a nil or freed Buffer).
func (b *Buffer[T]) Len() int {
	if b == nil {
		return 0
	}
	b.res.mu.RLock()
	defer b.res.mu.RUnlock()
	return b.n
}

// Kind returns where b's memory lives. A nil Buffer has no library memory
// and reports HostMemory.
func (b *Buffer[T]) Kind() MemoryKind {
	if b == nil {
		return HostMemory
	}
	return b.kind
}

// DType returns the library dtype of b's elements.
func (b *Buffer[T]) DType() DType { return DTypeOf[T]() }

// Free releases b's memory: it is reused once the work queued on it so far
// is done. Freeing a freed Buffer does nothing; freeing one that an open Graph
// recorded is refused (ErrInvalidArgument) until the Graph is closed. While a
// Stream records a Graph (Capture), the memory waits for the recording's end
// (a free on the default stream would end it).
func (b *Buffer[T]) Free() error {
	if b == nil {
		return nil
	}
	return b.res.close("free", "buffer", &b.cleanup, func() error {
		arr := b.arr
		b.arr, b.ptr, b.n = nil, nil, 0
		return check("free", func() C.cubridge_status { return C.cubridge_array_destroy(arr) })
	})
}

func (b *Buffer[T]) arg(name string) arg {
	if b == nil {
		return arg{name: name, kind: "buffer"}
	}
	return arg{name: name, r: &b.res, kind: "buffer"}
}

// bytes returns the size of n elements of T.
func bytesOf[T Number](n int) C.size_t { return C.size_t(n) * C.size_t(unsafe.Sizeof(*new(T))) }

// CopyFrom copies src into b; len(src) must equal b.Len(). It returns when
// the copy is done, after the work queued before it on the default stream.
func (b *Buffer[T]) CopyFrom(src []T) error { return b.copySlice("copy_from", src, true) }

// CopyTo copies b into dst; len(dst) must equal b.Len(). It returns when the
// copy is done, after the work queued before it on the default stream; work
// on other streams must be synchronized first.
func (b *Buffer[T]) CopyTo(dst []T) error { return b.copySlice("copy_to", dst, false) }

func (b *Buffer[T]) copySlice(op string, s []T, in bool) error {
	h, _, err := begin(op, nil, b.arg("buffer"))
	if err != nil {
		return err
	}
	defer h.release()
	if len(s) != b.n {
		return invalid(op, "slice has %d elements, buffer %d", len(s), b.n)
	}
	if b.n == 0 {
		return nil
	}
	// On the default stream: after the buffer's last write (CopyTo), or after
	// every use of it (CopyFrom writes it).
	c := call{op: callCopy}
	dt := DTypeOf[T]()
	if in {
		add(&c, b, true)
		c.slice(unsafe.Pointer(unsafe.SliceData(s)), dt, b.n, false)
	} else {
		c.slice(unsafe.Pointer(unsafe.SliceData(s)), dt, b.n, true)
		add(&c, b, false)
	}
	err = check(op, func() C.cubridge_status { return c.run(nil) })
	runtime.KeepAlive(s)
	return err
}

// Prefetch migrates a managed buffer towards device (HostDevice: the host)
// on stream s; other kinds of buffer are ErrInvalidArgument. It does nothing
// on the CPU backend.
func (b *Buffer[T]) Prefetch(device int, s *Stream) error {
	h, sh, err := begin("prefetch", s, b.arg("buffer"))
	if err != nil {
		return err
	}
	defer h.release()
	if b.kind != ManagedMemory {
		return invalid("prefetch", "buffer is %v memory; only managed memory can be prefetched", b.kind)
	}
	c := call{op: callPrefetch, extra: device}
	add(&c, b, false) // moved, not changed: a use like a read
	return check("prefetch", func() C.cubridge_status { return c.run(sh) })
}

// Copy copies src into dst, two buffers of the same length, on stream s.
// Between device, managed and pinned memory the copy is asynchronous on s.
func Copy[T Number](dst, src *Buffer[T], s *Stream) error {
	return srcToDst("memcpy", dst, src, s, callCopy)
}

// HostSlice returns a Go slice over a pinned or managed buffer's memory, for
// reading and writing it in place without copies, once the work of this
// package queued on b so far is done (HostSlice waits for it). The slice is
// valid only until b is freed, and must not be touched while device work
// queued later that uses b may be running (synchronize first). The slice does
// not keep b alive: keep b reachable while the slice is used
// (runtime.KeepAlive(b) after the last use), or the garbage collector frees
// the memory under it. Device buffers return ErrInvalidArgument: their memory
// is not addressable from the host.
func (b *Buffer[T]) HostSlice() ([]T, error) {
	h, _, err := begin("host_slice", nil, b.arg("buffer"))
	if err != nil {
		return nil, err
	}
	defer h.release()
	if b.kind != PinnedMemory && b.kind != ManagedMemory {
		return nil, invalid("host_slice", "buffer is %v memory; only pinned and managed memory is host-addressable", b.kind)
	}
	if b.n == 0 {
		return []T{}, nil
	}
	if err := check("host_slice", func() C.cubridge_status {
		return C.cubridge_array_sync(b.arr, C.CUBRIDGE_ACCESS_WRITE)
	}); err != nil {
		return nil, err
	}
	return unsafe.Slice((*T)(b.ptr), b.n), nil
}
