package cubridge

// #include "cubridge/runtime.h"
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// resource guards one C object (a buffer's memory, a stream, an event)
// against being released while another goroutine passes it to a C call.
// Calls hold a read lock for their duration; Free and Close take the write
// lock. Locks are always taken in increasing id order, so concurrent calls
// and frees cannot deadlock.
type resource struct {
	id     uint64
	mu     sync.RWMutex
	closed bool
	graphs atomic.Int32     // open Graphs that recorded it: close refuses while > 0
	array  C.cubridge_array // a Buffer's runtime array (a Graph orders its launches with it)
}

var lastResourceID atomic.Uint64

func (r *resource) init() { r.id = lastResourceID.Add(1) }

// close runs destroy once, under r's write lock (so after the calls that use r
// have returned), and stops the object's garbage-collector cleanup. Closing a
// closed resource does nothing; closing one that an open Graph recorded is
// refused, as the Graph's launches still use it.
func (r *resource) close(op, kind string, cleanup *runtime.Cleanup, destroy func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if n := r.graphs.Load(); n > 0 {
		return invalid(op, "the %s is recorded in %d open Graph(s): Close them first", kind, n)
	}
	r.closed = true
	cleanup.Stop()
	return destroy()
}

// arg names a resource for the error message when it is nil or closed.
type arg struct {
	name string
	r    *resource // nil: the caller passed a nil object
	kind string    // "buffer", "stream", "event"
}

// maxHeld is the most resources one call locks: a declared kernel's eight
// Buffers and its stream (Kernel.Call).
const maxHeld = 9

// held is the set of resources read-locked for one call.
type held struct {
	rs [maxHeld]*resource
	n  int
}

func (h *held) release() {
	for i := h.n - 1; i >= 0; i-- {
		h.rs[i].mu.RUnlock()
	}
	h.n = 0
}

// acquire read-locks every resource in args (each once, in id order) and
// checks none is nil or closed.
func acquire(op string, args ...arg) (held, error) {
	var h held
	for _, a := range args {
		if a.r == nil {
			return held{}, invalid(op, "%s is a nil %s", a.name, a.kind)
		}
	}
	// Collect distinct resources, sorted by id (insertion sort: n <= maxHeld).
	var rs [maxHeld]*resource
	n := 0
	for _, a := range args {
		dup := false
		for _, r := range rs[:n] {
			if r == a.r {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		if n == len(rs) {
			return held{}, &Error{Op: op, Status: StatusInternal, Msg: "too many resources in one call"}
		}
		i := n
		for i > 0 && rs[i-1].id > a.r.id {
			rs[i] = rs[i-1]
			i--
		}
		rs[i] = a.r
		n++
	}
	for i := 0; i < n; i++ {
		rs[i].mu.RLock()
		h.rs[i] = rs[i]
		h.n++
	}
	for _, a := range args {
		if a.r.closed {
			h.release()
			return held{}, invalid(op, "%s: %s is already %s", a.name, a.kind, closedVerb(a.kind))
		}
	}
	return h, nil
}

// closedVerb is what ended a resource of kind: buffers are freed, the rest closed.
func closedVerb(kind string) string {
	if kind == "buffer" {
		return "freed"
	}
	return "closed"
}
