/* One op call: the runtime's call (its stream, its arguments ordered after
 * their producers: cubridge/runtime.h) and what Python adds: the stream
 * argument, the readers, the result, the objects a recording keeps. */
#ifndef CUBRIDGE_CEXT_CALL_H_
#define CUBRIDGE_CEXT_CALL_H_

#include "arg.h"

/* The runtime's limit: a declared kernel may take that many arrays. */
#define CB_MAX_CALL_ARGS CUBRIDGE_CALL_MAX_ARGS

typedef struct cb_call {
  cb_module* m;
  cubridge_call rt;
  uintptr_t handle;      /* the stream argument's cudaStream_t (0: none) ... */
  cubridge_stream given; /* ... and its wrapper (owned) */
  cb_arg args[CB_MAX_CALL_ARGS];
  int count;
  PyObject* recording; /* the cubridge.Stream recording's list, or NULL */
  PyObject* result;    /* owned: the array returned to the caller */
} cb_call;

/* Parses the stream argument and begins the runtime's call. Without one
 * (None) the op runs on the default stream, unless `may_follow` and its first
 * array argument names the stream that produced it (a torch tensor: torch's
 * current stream; a CUDA array interface's `stream`): then on that stream, as
 * torch's own ops run on its current stream. -1 with an error (cb_call_fail
 * releases). */
int cb_call_begin(cb_call* c, cb_module* m, PyObject* stream_obj, int may_follow);
/* Reads an array argument, has the runtime check it and order the call's
 * stream after it (`access`: CUBRIDGE_ACCESS_READ or _WRITE), and keeps it
 * for the Graph when a cubridge.Stream records; NULL with an error. */
cb_arg* cb_call_arg(cb_call* c, PyObject* obj, const char* name, int access);
/* The out= argument, or a new result shaped like `proto` with `dtype`; checks
 * its dtype and shape. NULL with an error. */
cb_arg* cb_call_out(cb_call* c, PyObject* out_obj, const cb_arg* proto, int dtype);
/* dst[...] = src on the call's stream (nothing when they are the same memory). */
int cb_call_copy(cb_call* c, cb_arg* dst, const cb_arg* src);
/* Right before the op: when every argument is device or managed memory of
 * one device, the library may skip its pointer lookups. */
void cb_call_assume_device(cb_call* c);
/* Ends the call: when `status` is OK the runtime records the arguments' uses
 * and orders their producers after the call. Releases everything and returns
 * `value` when given (else the result), or NULL with the status raised. */
PyObject* cb_call_end(cb_call* c, cubridge_status status, PyObject* value);
/* Releases everything after an error; returns NULL. */
PyObject* cb_call_fail(cb_call* c);

/* A real-number argument (float, int, or anything with __float__). */
int cb_real(PyObject* obj, const char* name, double* v);
/* For an integer dtype, -1 with an error when `obj` (the value cb_real read)
 * is an integer that a double does not hold exactly, as Go's toScalar: the C
 * ABI takes scalars as doubles. */
int cb_int_scalar_exact(cb_module* m, PyObject* obj, const char* fn, const char* name, int dtype);

#endif /* CUBRIDGE_CEXT_CALL_H_ */
