package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Stream is a CUDA stream: device-path operations given the same Stream run
// in order, asynchronously to the host. A nil *Stream means the default
// stream. On the CPU backend streams exist but every operation completes
// before it returns.
//
// A Stream is safe for use by many goroutines; Close waits for calls that
// are using it to return.
type Stream struct {
	res       resource
	h         C.cubridge_stream
	cleanup   runtime.Cleanup
	recording atomic.Pointer[recording] // while Capture records on it (graph.go)
}

// NewStream creates a stream. Close it when done; an unreachable Stream is
// closed by the garbage collector as a safety net.
func NewStream() (*Stream, error) {
	return create("stream_create", newStream, func(h *C.cubridge_stream) C.cubridge_status {
		return C.cubridge_stream_create(h)
	})
}

// NewStreamOn creates a stream on CUDA device d (on the CPU backend only
// device 0 exists). Work on it runs on d; buffers of another device given
// with it are ErrInvalidArgument.
func NewStreamOn(d int) (*Stream, error) {
	return create("stream_create_on", newStream, func(h *C.cubridge_stream) C.cubridge_status {
		return C.cubridge_stream_create_on(C.int(d), h)
	})
}

// Device returns the CUDA device s belongs to (a nil Stream: the default
// stream of the C library's current device, 0 unless other C code changed it).
func (s *Stream) Device() (int, error) {
	var d C.int
	err := s.call("stream_device", func(sh C.cubridge_stream) C.cubridge_status { return C.cubridge_stream_device(sh, &d) })
	return int(d), err
}

// Handle returns the cudaStream_t behind s, for other libraries
// (StreamFromHandle's inverse): 0 for a nil Stream (the default stream) and
// on the CPU backend.
func (s *Stream) Handle() (uintptr, error) {
	var handle C.uintptr_t
	err := s.call("stream_handle", func(sh C.cubridge_stream) C.cubridge_status { return C.cubridge_stream_handle(sh, &handle) })
	return uintptr(handle), err
}

// StreamFromHandle wraps a cudaStream_t created elsewhere (by CuPy, torch,
// ...) without owning it: Close releases only the wrapper.
func StreamFromHandle(handle uintptr) (*Stream, error) {
	return create("stream_from_handle", newStream, func(h *C.cubridge_stream) C.cubridge_status {
		return C.cubridge_stream_from_handle(C.uintptr_t(handle), h)
	})
}

// DefaultStreamOn returns the default stream of CUDA device d, where
// operations on d's buffers given a nil Stream run, as a Stream that names d:
// an Event recorded or waited for on it, and its Synchronize, reach d's
// default stream whichever device is current (a nil Stream means the current
// device's). Close releases only the wrapper.
func DefaultStreamOn(d int) (*Stream, error) {
	return create("stream_from_handle_on", newStream, func(h *C.cubridge_stream) C.cubridge_status {
		return C.cubridge_stream_from_handle_on(0, C.int(d), h)
	})
}

func newStream(h C.cubridge_stream) *Stream {
	s := &Stream{h: h}
	s.res.init()
	s.cleanup = runtime.AddCleanup(s, func(h C.cubridge_stream) { C.cubridge_stream_destroy(h) }, h)
	return s
}

func (s *Stream) arg() arg {
	if s == nil {
		return arg{}
	}
	return arg{name: "stream", r: &s.res, kind: "stream"}
}

// Synchronize waits until all work queued on s is done. A nil s waits for
// the default stream.
func (s *Stream) Synchronize() error {
	return s.call("stream_synchronize", func(sh C.cubridge_stream) C.cubridge_status { return C.cubridge_stream_synchronize(sh) })
}

// Query reports whether all work queued on s so far is done, without waiting
// (a nil s: the default stream). Polling it with a deadline is how a rank
// tells a hung collective (Comm.Abort).
func (s *Stream) Query() (bool, error) {
	var done C.int
	err := s.call("stream_query", func(sh C.cubridge_stream) C.cubridge_status { return C.cubridge_stream_query(sh, &done) })
	return done != 0, err
}

// call runs f on s's handle (NULL for a nil s) while s cannot be closed.
func (s *Stream) call(op string, f func(C.cubridge_stream) C.cubridge_status) error {
	h, sh, err := begin(op, s)
	if err != nil {
		return err
	}
	defer h.release()
	return check(op, func() C.cubridge_status { return f(sh) })
}

// Close destroys the stream, after the work queued on it (the memory of the
// Buffers last used there is reused on that count). Closing a wrapper of
// another library's stream (StreamFromHandle) releases only the wrapper.
// Closing a closed Stream does nothing.
func (s *Stream) Close() error {
	if s == nil {
		return nil
	}
	return s.res.close("stream_destroy", "stream", &s.cleanup, func() error {
		return check("stream_destroy", func() C.cubridge_status { return C.cubridge_stream_destroy(s.h) })
	})
}

// Event marks a point in a stream, for timing and for waiting on part of
// the queued work.
type Event struct {
	res     resource
	h       C.cubridge_event
	cleanup runtime.Cleanup
}

// NewEvent creates an event. Close it when done.
func NewEvent() (*Event, error) {
	return create("event_create", newEvent, func(h *C.cubridge_event) C.cubridge_status {
		return C.cubridge_event_create(h)
	})
}

func newEvent(h C.cubridge_event) *Event {
	e := &Event{h: h}
	e.res.init()
	e.cleanup = runtime.AddCleanup(e, func(h C.cubridge_event) { C.cubridge_event_destroy(h) }, h)
	return e
}

func (e *Event) arg(name string) arg {
	if e == nil {
		return arg{name: name, kind: "event"}
	}
	return arg{name: name, r: &e.res, kind: "event"}
}

// Record records e on stream s (nil: the default stream): e completes when
// the work queued on s before it is done.
func (e *Event) Record(s *Stream) error {
	h, sh, err := begin("event_record", s, e.arg("event"))
	if err != nil {
		return err
	}
	defer h.release()
	return check("event_record", func() C.cubridge_status { return C.cubridge_event_record(e.h, sh) })
}

// Synchronize waits until e has completed.
func (e *Event) Synchronize() error {
	h, _, err := begin("event_synchronize", nil, e.arg("event"))
	if err != nil {
		return err
	}
	defer h.release()
	return check("event_synchronize", func() C.cubridge_status { return C.cubridge_event_synchronize(e.h) })
}

// Close destroys the event. Closing a closed Event does nothing.
func (e *Event) Close() error {
	if e == nil {
		return nil
	}
	return e.res.close("event_destroy", "event", &e.cleanup, func() error {
		return check("event_destroy", func() C.cubridge_status { return C.cubridge_event_destroy(e.h) })
	})
}

// Elapsed returns the time between two recorded, completed events.
func Elapsed(start, end *Event) (time.Duration, error) {
	h, _, err := begin("event_elapsed", nil, start.arg("start"), end.arg("end"))
	if err != nil {
		return 0, err
	}
	defer h.release()
	var ms C.float
	err = check("event_elapsed", func() C.cubridge_status {
		return C.cubridge_event_elapsed_ms(start.h, end.h, &ms)
	})
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}

// create runs a C constructor, which writes the new object's handle to *h,
// and wraps the handle it made (newStream, newEvent).
func create[H, R any](op string, wrap func(H) *R, construct func(h *H) C.cubridge_status) (*R, error) {
	var h H
	if err := check(op, func() C.cubridge_status { return construct(&h) }); err != nil {
		return nil, err
	}
	return wrap(h), nil
}

// begin read-locks the resources in args and the stream s (nil: the default
// stream, nothing to lock) for one C call, and returns s's handle. The
// caller must release the locks when the call has returned. While s records
// a Graph, args are noted for the Graph to keep.
func begin(op string, s *Stream, args ...arg) (held, C.cubridge_stream, error) {
	var all [maxHeld]arg // a kernel's Buffers and a stream at most
	n := copy(all[:maxHeld-1], args)
	if s != nil {
		all[n] = s.arg()
		n++
	}
	h, err := acquire(op, all[:n]...)
	if err != nil || s == nil {
		return h, nil, err
	}
	if rec := s.recording.Load(); rec != nil {
		rec.add(args)
	}
	return h, s.h, nil
}
