/* Stream arguments and the stream handshakes between producers and consumers. */
#ifndef CUBRIDGE_CEXT_STREAM_H_
#define CUBRIDGE_CEXT_STREAM_H_

#include "state.h"

/* Stream argument: None, an int cudaStream_t, a cubridge.Stream, an object
 * with __cuda_stream__, .ptr (CuPy) or .cuda_stream (torch). Sets *handle (0:
 * the default stream). */
int cb_stream_handle(cb_state* st, PyObject* obj, uintptr_t* handle);
/* A cubridge_stream wrapping `handle` (NULL for 0); release it after use. */
int cb_stream_from_handle(cb_state* st, uintptr_t handle, cubridge_stream* stream);
void cb_stream_release(cubridge_stream stream);
/* Orders `consumer` after the work queued so far on `producer` (both handles,
 * 0 = default stream) without blocking the host: an event recorded on the
 * producer, waited for by the consumer. A no-op when they are the same stream,
 * for CB_STREAM_UNORDERED and on the CPU backend. */
int cb_stream_order(cb_state* st, uintptr_t producer, uintptr_t consumer);

#endif /* CUBRIDGE_CEXT_STREAM_H_ */
