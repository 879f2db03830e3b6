/* One op call: its stream, its imported array arguments (released together),
 * its result. */
#ifndef CUBRIDGE_CEXT_CALL_H_
#define CUBRIDGE_CEXT_CALL_H_

#include "view.h"

#define CB_MAX_CALL_ARGS 4

typedef struct cb_call {
  cb_state* st;
  cb_view args[CB_MAX_CALL_ARGS];
  int count;
  uintptr_t stream_handle;
  cubridge_stream stream;
  int follow;          /* no stream given: the first array's producer stream is taken */
  int capturing;       /* the stream records a graph: nothing is ordered now */
  PyObject* recording; /* the cubridge.Stream recording's list, or NULL */
  PyObject* result;    /* owned: the array returned to the caller */
} cb_call;

/* Parses the stream argument and asks whether it records a graph. Without one
 * (None) the op runs on the default stream, unless `may_follow` and its first
 * array argument names the stream that produced it (a torch tensor: torch's
 * current stream; a CUDA array interface's `stream`): then on that stream, as
 * torch's own ops run on its current stream. -1 with an error (nothing to
 * release). */
int cb_call_begin(cb_call* c, cb_state* st, PyObject* stream_obj, int may_follow);
/* Imports an array argument (kept for the Graph when a cubridge.Stream
 * records) and orders the call's stream after its producer's; NULL with an
 * error. */
cb_view* cb_call_arg(cb_call* c, PyObject* obj, const char* name, int writable);
/* The out= argument, or a new result shaped like `proto` with `dtype`; checks
 * its dtype and shape. NULL with an error. */
cb_view* cb_call_out(cb_call* c, PyObject* out_obj, const cb_view* proto, int dtype);
/* dst[...] = src on the call's stream (nothing when they are the same memory). */
int cb_call_copy(cb_call* c, cb_view* dst, const cb_view* src);
/* Right before the op: when every array argument is device-accessible memory of
 * one device, as its producer said, the library may skip its pointer lookups
 * (cubridge_assume_device). */
void cb_call_assume_device(cb_call* c);
/* Ends the call: when `status` is OK and the stream is not recording, records
 * the use of every cubridge.Array argument on the call's stream (`written`,
 * may be NULL, as written; a Graph records them at each launch), releases
 * everything, and returns `value` when given (else
 * the result), or NULL with the status raised. */
PyObject* cb_call_end(cb_call* c, cubridge_status status, cb_view* written, PyObject* value);
/* Releases everything after an error; returns NULL. */
PyObject* cb_call_fail(cb_call* c);

/* A real-number argument (float, int, or anything with __float__). */
int cb_real(PyObject* obj, const char* name, double* v);
/* For an integer dtype, -1 with an error when `obj` (the value cb_real read)
 * is an integer that a double does not hold exactly, as Go's toScalar: the C
 * ABI takes scalars as doubles. */
int cb_int_scalar_exact(cb_state* st, PyObject* obj, const char* fn, const char* name, int dtype);

#endif /* CUBRIDGE_CEXT_CALL_H_ */
