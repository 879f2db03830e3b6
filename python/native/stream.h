/* Stream arguments: Python objects to cudaStream_t handles, handles to the
 * library's stream wrappers. Who waits for whom is the runtime's (call.h). */
#ifndef CUBRIDGE_CEXT_STREAM_H_
#define CUBRIDGE_CEXT_STREAM_H_

#include "common.h"

/* Stream argument: None, an int cudaStream_t, a cubridge.Stream, an object
 * with __cuda_stream__, .ptr (CuPy) or .cuda_stream (torch). Sets *handle (0:
 * the default stream). */
int cb_stream_handle(cb_module* m, PyObject* obj, uintptr_t* handle);
/* A cubridge_stream wrapping `handle`; release it after use. The default
 * stream handles (0, 1, 2) name that stream of `device`, the device of the
 * arrays it is for, whichever device is current; with device -1 they follow
 * the current device. 0 and 1 (the legacy one) give NULL where that is the
 * same stream: for device -1, and on a machine with one device. */
int cb_stream_wrap(cb_module* m, uintptr_t handle, int device, cubridge_stream* stream);
/* Releases a wrapper (a library call: read a failed call's message first). */
void cb_stream_release(cubridge_stream stream);

#endif /* CUBRIDGE_CEXT_STREAM_H_ */
