/* Streams of cubridge's own and the CUDA graphs they record, for
 * cubridge/_graph.py (cubridge.Stream, cubridge.Graph). */
#ifndef CUBRIDGE_CEXT_GRAPH_H_
#define CUBRIDGE_CEXT_GRAPH_H_

#include "common.h"

/* While a cubridge.Stream records: the objects its ops used (a list, kept
 * alive by the Graph) and the stream's handle; NULL otherwise. */
typedef struct cb_graph {
  PyObject* recording;
  uintptr_t recording_stream;
} cb_graph;

/* Adds the _stream_* and _graph_* functions to `module`. */
int cb_graph_init(PyObject* module, cb_module* m);
int cb_graph_traverse(cb_module* m, visitproc visit, void* arg);
void cb_graph_clear(cb_module* m);

/* A new reference to the recording's list when `handle` is the stream that
 * records, else NULL (no exception). */
PyObject* cb_graph_recording(cb_module* m, uintptr_t handle);

#endif /* CUBRIDGE_CEXT_GRAPH_H_ */
