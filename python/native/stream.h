/* Stream arguments and the stream handshakes between producers and consumers. */
#ifndef CUBRIDGE_CEXT_STREAM_H_
#define CUBRIDGE_CEXT_STREAM_H_

#include "state.h"

/* Stream argument: None, an int cudaStream_t, a cubridge.Stream, an object
 * with __cuda_stream__, .ptr (CuPy) or .cuda_stream (torch). Sets *handle (0:
 * the default stream). */
int cb_stream_handle(cb_state* st, PyObject* obj, uintptr_t* handle);
/* A cubridge_stream wrapping `handle`; release it after use. The default
 * stream handles (0, 1, 2) name that stream of `device`, the device of the
 * arrays it is for, whichever device is current; with device -1 they follow
 * the current device. 0 and 1 (the legacy one) give NULL where that is the
 * same stream: for device -1, and on a machine with one device. */
int cb_stream_from_handle(cb_state* st, uintptr_t handle, int device, cubridge_stream* stream);
void cb_stream_release(cubridge_stream stream);
/* Releases `stream` after the call on it that returned `status`: raises that
 * call's error first, since the release is a cubridge call and the library's
 * message lasts only until the next one. 0, or -1 with the error set. */
int cb_stream_release_after(cb_state* st, cubridge_stream stream, cubridge_status status);
/* The device whose default stream (handle 0) an op without a stream runs on,
 * for `memory` (cubridge_memory) on `device`: that device for device memory;
 * for managed and pinned memory, which the library runs where the caller is,
 * -1 (the current device). */
static inline int cb_home_device(int memory, int device) {
  return memory == CUBRIDGE_MEMORY_DEVICE ? device : -1;
}
/* Orders `consumer` after the work queued so far on `producer` (both handles,
 * 0 = default stream, of `device`: the device of the array they share) without
 * blocking the host: an event recorded on the producer, waited for by the
 * consumer. A no-op when they are the same stream, for CB_STREAM_UNORDERED and
 * on the CPU backend. */
int cb_stream_order(cb_state* st, uintptr_t producer, uintptr_t consumer, int device);
/* Orders a producer's stream after an op queued on `op_stream`, which the
 * caller knows is not recording a graph (cb_stream_order without asking). */
int cb_stream_hand_back(cb_state* st, uintptr_t op_stream, uintptr_t producer, int device);

#endif /* CUBRIDGE_CEXT_STREAM_H_ */
