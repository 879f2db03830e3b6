package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"errors"
	"runtime"
)

// Graph is work recorded on a stream once and replayed by Launch for the
// cost of one launch, however many operations it holds: the way to run many
// small operations faster than one launch each (a CUDA graph). A Graph
// replays the buffers and lengths it was recorded with, so keep those
// buffers alive while the Graph is used. CUDA backend only.
//
// A Graph is safe for use by many goroutines; Close waits for launches that
// are using it to return.
type Graph struct {
	res     resource
	h       C.cubridge_graph
	cleanup runtime.Cleanup
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
	err = check("stream_begin_capture", func() C.cubridge_status { return C.cubridge_stream_begin_capture(sh) })
	h.release()
	if err != nil {
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
	if recErr != nil || err != nil {
		C.cubridge_graph_destroy(g) // NULL when the recording failed
		return nil, errors.Join(recErr, err)
	}
	graph := &Graph{h: g}
	graph.res.init()
	graph.cleanup = runtime.AddCleanup(graph, func(g C.cubridge_graph) { C.cubridge_graph_destroy(g) }, g)
	return graph, nil
}

// endCapture ends the capture on s and returns the recorded graph (NULL when
// the recording failed, or s was closed meanwhile).
func endCapture(s *Stream) (C.cubridge_graph, error) {
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
// asynchronously, in the order they were recorded.
func (g *Graph) Launch(s *Stream) error {
	h, sh, err := begin("graph_launch", s, g.arg())
	if err != nil {
		return err
	}
	defer h.release()
	return check("graph_launch", func() C.cubridge_status { return C.cubridge_graph_launch(g.h, sh) })
}

// Close destroys the graph. Closing a closed Graph does nothing.
func (g *Graph) Close() error {
	if g == nil {
		return nil
	}
	return g.res.close(&g.cleanup, func() error {
		return check("graph_destroy", func() C.cubridge_status { return C.cubridge_graph_destroy(g.h) })
	})
}
