package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"fmt"
	"runtime"
	"sync"
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
// Device buffers come from the library's stream-ordered memory pool of their
// device (cubridge_malloc_async): allocating and freeing cost no device
// synchronization, and freed memory is reused once the buffer's stream has
// reached the free (a block of up to 32 MiB freed on the default stream or a
// stream of NewStream goes to the next allocation of its size on that stream
// without a CUDA call). Work queued on other streams that uses a buffer must
// be ordered before its Free (synchronize that stream, or make the buffer's
// stream wait for it).
//
// Free a Buffer when done with it. A Buffer that becomes unreachable is
// freed by the garbage collector as a safety net, but GPU memory is scarcer
// than the collector knows. The collector frees on the device's default
// stream, which waits for work on streams of NewStream but not for work on a
// non-blocking stream of another library's (StreamFromHandle): keep such a
// Buffer reachable until that work is done. A Buffer is safe for use by many
// goroutines; Free waits for calls that are using the buffer to return, after
// which every use reports ErrInvalidArgument.
type Buffer[T Number] struct {
	res     resource
	ptr     unsafe.Pointer // C memory; nil when n == 0 or after Free
	n       int
	kind    MemoryKind
	device  int     // the CUDA device (0 on the CPU backend)
	stream  *Stream // allocated (and freed) in order on this stream; nil: the default one
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

type freeArgs struct {
	kind MemoryKind
	ptr  unsafe.Pointer
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
		if kind != DeviceMemory {
			// Managed and pinned memory: not pooled; the device is only checked.
			if st := C.cubridge_check_device(C.int(device)); st != C.CUBRIDGE_OK {
				return st
			}
			return C.cubridge_malloc(C.int(kind), C.size_t(n*size), &p)
		}
		return C.cubridge_malloc_async(C.int(kind), C.size_t(n*size), C.int(device), sh, &p)
	}); err != nil {
		return nil, err
	}
	b := &Buffer[T]{ptr: p, n: n, kind: kind, device: device, stream: cfg.stream}
	b.res.init()
	if p != nil {
		b.cleanup = runtime.AddCleanup(b, func(a freeArgs) { freeOrDefer(a, nil, false) }, freeArgs{kind, p})
	}
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

// Free releases b's memory. Freeing a freed Buffer does nothing; freeing one
// that an open Graph recorded is refused (ErrInvalidArgument) until the Graph
// is closed.
func (b *Buffer[T]) Free() error {
	if b == nil {
		return nil
	}
	// In order on the allocation's stream; if that stream is already closed,
	// on the device's default stream. The stream is older than b, so locking
	// it first keeps the package's lock order (increasing resource id).
	var sh C.cubridge_stream
	recording := false
	if s := b.stream; s != nil {
		s.res.mu.RLock()
		defer s.res.mu.RUnlock()
		if !s.res.closed {
			sh = s.h
			recording = s.recording.Load() != nil
		}
	}
	return b.res.close("free", "buffer", &b.cleanup, func() error {
		a := freeArgs{b.kind, b.ptr}
		b.ptr, b.n = nil, 0
		return freeOrDefer(a, sh, recording)
	})
}

// captures counts the Streams recording a Graph (Capture). While one records,
// a free on the default stream would end the recording with an error (the
// package's streams are ordered with the default stream), as would one on the
// recording stream itself: such frees wait for the last recording to end.
var captures struct {
	sync.Mutex // held across such a free: a recording begins after it
	active     int
	deferred   []freeArgs
}

// freeOrDefer frees a's memory on sh (nil: the default stream; memory other
// than device memory at once), or keeps it for the end of the recordings under
// way when that free would end one (sh nil, or recording).
func freeOrDefer(a freeArgs, sh C.cubridge_stream, recording bool) error {
	if sh == nil || a.kind != DeviceMemory || recording {
		captures.Lock()
		defer captures.Unlock()
		if captures.active > 0 {
			captures.deferred = append(captures.deferred, a)
			return nil
		}
	}
	return check("free", func() C.cubridge_status {
		if a.kind != DeviceMemory || sh == nil {
			return C.cubridge_free(C.int(a.kind), a.ptr)
		}
		return C.cubridge_free_async(C.int(a.kind), a.ptr, sh)
	})
}

// captureBegins and captureEnds bracket a recording; the last to end frees
// what was kept meanwhile.
func captureBegins() {
	captures.Lock()
	captures.active++
	captures.Unlock()
}

func captureEnds() {
	captures.Lock()
	captures.active--
	var kept []freeArgs
	if captures.active == 0 {
		kept, captures.deferred = captures.deferred, nil
	}
	captures.Unlock()
	for _, a := range kept {
		_ = freeOrDefer(a, nil, false) // errors have no caller to go to, as in a GC cleanup
	}
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
	host := unsafe.Pointer(unsafe.SliceData(s))
	dst, src := host, b.ptr
	if in {
		dst, src = b.ptr, host
	}
	err = check(op, func() C.cubridge_status { return C.cubridge_memcpy(dst, src, bytesOf[T](b.n), nil) })
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
	return check("prefetch", func() C.cubridge_status {
		return C.cubridge_prefetch(b.ptr, bytesOf[T](b.n), C.int(device), sh)
	})
}

// Copy copies src into dst, two buffers of the same length, on stream s.
// Between device, managed and pinned memory the copy is asynchronous on s.
func Copy[T Number](dst, src *Buffer[T], s *Stream) error {
	return srcToDst("memcpy", dst, src, s, func(sh C.cubridge_stream) C.cubridge_status {
		return C.cubridge_memcpy(dst.ptr, src.ptr, bytesOf[T](dst.n), sh)
	})
}

// HostSlice returns a Go slice over a pinned or managed buffer's memory, for
// reading and writing it in place without copies. The slice is valid only
// until b is freed, and must not be touched while device work that uses b
// may be running (synchronize first). The slice does not keep b alive: keep
// b reachable while the slice is used (runtime.KeepAlive(b) after the last
// use), or the garbage collector frees the memory under it. Device buffers
// return ErrInvalidArgument: their memory is not addressable from the host.
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
	return unsafe.Slice((*T)(b.ptr), b.n), nil
}
