package cubridge

// #include "cubridge/runtime.h"
import "C"

import (
	"errors"
	"runtime"
	"sync"
)

// Graph is work recorded on a stream once and replayed by Launch for the
// cost of one launch, however many operations it holds: the way to run many
// small operations faster than one launch each (a CUDA graph). A Graph
// replays the buffers and lengths it was recorded with. It keeps those
// buffers (and the events, communicators and graphs its operations used)
// from the garbage collector, and freeing or closing one of them is refused
// until the Graph is closed. CUDA backend only.
//
// A Graph is safe for use by many goroutines; Close waits for launches that
// are using it to return.
type Graph struct {
	res     resource
	h       C.cubridge_graph
	kept    []*resource // what its operations use, kept open (recording.keep)
	cleanup runtime.Cleanup
}

// graphParts is what a collected Graph's cleanup releases.
type graphParts struct {
	h    C.cubridge_graph
	kept []*resource
}

// Capture records the operations that record enqueues on s (a stream from
// NewStream, not the default stream) into a Graph instead of running them.
// Only asynchronous operations on device buffers can be recorded: an
// operation that returns a value or uses host memory (SumBuffer, slices,
// Synchronize) makes Capture fail, and s runs normally again. The error of
// record, if any, is returned with the recording discarded. On the CPU
// backend Capture returns ErrNoDevice.
func (s *Stream) Capture(record func() error) (*Graph, error) {
	if s == nil {
		return nil, invalid("capture", "stream is nil (the default stream cannot be recorded)")
	}
	if record == nil {
		return nil, invalid("capture", "record is nil")
	}
	h, sh, err := begin("stream_begin_capture", s)
	if err != nil {
		return nil, err
	}
	// Noted before the recording begins: a call on s or a free that races with
	// the begin is then kept or held back, not missed.
	rec := &recording{used: map[*resource]string{}}
	s.recording.Store(rec)
	// The library holds back frees of Buffers until the recording ends (a free
	// on the default stream would end it).
	err = check("stream_begin_capture", func() C.cubridge_status { return C.cubridge_stream_begin_capture(sh) })
	h.release()
	if err != nil {
		s.recording.Store(nil)
		return nil, err
	}
	ended := false
	defer func() {
		if !ended { // record panicked: end the capture, drop the graph, let the panic go on
			g, _ := endCapture(s)
			C.cubridge_graph_destroy(g)
		}
	}()
	recErr := record()
	ended = true
	g, err := endCapture(s)
	var kept []*resource
	if recErr == nil && err == nil {
		kept, err = rec.keep()
	}
	if recErr != nil || err != nil {
		C.cubridge_graph_destroy(g) // NULL when the recording failed
		return nil, errors.Join(recErr, err)
	}
	graph := &Graph{h: g, kept: kept}
	graph.res.init()
	graph.cleanup = runtime.AddCleanup(graph, func(p graphParts) {
		C.cubridge_graph_destroy(p.h)
		release(p.kept)
	}, graphParts{g, kept})
	return graph, nil
}

// endCapture ends the capture on s and returns the recorded graph (NULL when
// the recording failed, or s was closed meanwhile).
func endCapture(s *Stream) (C.cubridge_graph, error) {
	// A call whose C call the capture took has noted its arguments already:
	// begin notes them before it returns.
	defer s.recording.Store(nil)
	h, sh, err := begin("stream_end_capture", s)
	if err != nil {
		return nil, err
	}
	defer h.release()
	var g C.cubridge_graph
	err = check("stream_end_capture", func() C.cubridge_status { return C.cubridge_stream_end_capture(sh, &g) })
	return g, err
}

func (g *Graph) arg() arg {
	if g == nil {
		return arg{name: "graph", kind: "graph"}
	}
	return arg{name: "graph", r: &g.res, kind: "graph"}
}

// Launch enqueues every recorded operation on s (nil: the default stream),
// asynchronously, in the order they were recorded: after the earlier work on
// the Buffers the Graph keeps (reads too), before their next uses and their
// memory's reuse, as an operation that writes them all.
func (g *Graph) Launch(s *Stream) error {
	h, sh, err := begin("graph_launch", s, g.arg())
	if err != nil {
		return err
	}
	defer h.release()
	var arrays []C.cubridge_array
	for _, r := range g.kept {
		if r.array != nil {
			arrays = append(arrays, r.array)
		}
	}
	return check("graph_launch", func() C.cubridge_status { return launchGraph(g.h, arrays, sh) })
}

// Close destroys the graph. Closing a closed Graph does nothing.
func (g *Graph) Close() error {
	if g == nil {
		return nil
	}
	return g.res.close("graph_destroy", "graph", &g.cleanup, func() error {
		defer release(g.kept)
		return check("graph_destroy", func() C.cubridge_status { return C.cubridge_graph_destroy(g.h) })
	})
}

// recording collects the resources that calls on a capturing stream use
// (begin), for the Graph to keep.
type recording struct {
	mu   sync.Mutex
	used map[*resource]string // the resource's kind, for errors
}

func (r *recording) add(args []arg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range args {
		if a.r != nil && a.kind != "stream" { // a graph does not use the streams it was recorded on
			r.used[a.r] = a.kind
		}
	}
}

// keep counts one more open Graph on every recorded resource; when one was
// freed or closed before the recording ended, it counts none and fails.
func (r *recording) keep() ([]*resource, error) {
	// A copy: begin takes r.mu while it holds resource locks, so r.mu is not
	// held while taking one here.
	r.mu.Lock()
	used := make(map[*resource]string, len(r.used))
	for res, kind := range r.used {
		used[res] = kind
	}
	r.mu.Unlock()
	kept := make([]*resource, 0, len(used))
	for res, kind := range used {
		res.mu.RLock()
		closed := res.closed
		if !closed {
			res.graphs.Add(1)
		}
		res.mu.RUnlock()
		if closed {
			release(kept)
			return nil, invalid("stream_end_capture", "a %s the recording used was %s before the recording ended", kind, closedVerb(kind))
		}
		kept = append(kept, res)
	}
	return kept, nil
}

// release ends one Graph's hold on each of kept.
func release(kept []*resource) {
	for _, r := range kept {
		r.graphs.Add(-1)
	}
}
