/* Streams of cubridge's own and the CUDA graphs they record, for
 * cubridge/_graph.py (cubridge.Stream, cubridge.Graph). */
#ifndef CUBRIDGE_CEXT_GRAPH_H_
#define CUBRIDGE_CEXT_GRAPH_H_

#include "state.h"

/* Adds the _stream_* and _graph_* functions to `module`. */
int cb_graph_init(PyObject* module, cb_state* st);

#endif /* CUBRIDGE_CEXT_GRAPH_H_ */
