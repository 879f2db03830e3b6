/* Importing a cupy.ndarray from the attributes its __cuda_array_interface__
 * is built from (data.ptr, data.device_id, shape, strides, dtype) rather than
 * through that property, which builds a dict of seven entries on every access
 * (about 0.5 us on the GPU host, against 0.2 for the attributes). */
#ifndef CUBRIDGE_CEXT_CUPY_IMPORT_H_
#define CUBRIDGE_CEXT_CUPY_IMPORT_H_

#include "arg.h"

#define CB_CUPY_DTYPES 8

/* CuPy, from the first cupy.ndarray seen on. */
typedef struct cb_cupy {
  int ready;                            /* 1: the objects below are set; -1: CuPy lacks them */
  int read;                             /* 1: the last array was read by attributes; -1: not */
  PyObject* current_stream;             /* cupy.cuda.get_current_stream */
  uintptr_t default_stream;             /* what CuPy's interface names for Stream.null */
  PyObject* dtype_seen[CB_CUPY_DTYPES]; /* numpy.dtype objects met, owned ... */
  int dtype_code[CB_CUPY_DTYPES];       /* ... and their cubridge dtypes */
  int dtype_next;
} cb_cupy;

int cb_cupy_traverse(cb_module* m, visitproc visit, void* arg);
void cb_cupy_clear(cb_module* m);

/* Returned (no exception set) when the array does not have the attributes
 * (a CuPy of another shape): the caller then uses the generic path. */
#define CB_CUPY_GENERIC (-2)

/* Fills `a` from the cupy.ndarray `obj` (kept alive in a->keep); -1 with an
 * exception. The producer is CuPy's current stream, the one its interface
 * names, asked unless `consumer` is CB_STREAM_UNORDERED. */
int cb_import_cupy(cb_module* m, PyObject* obj, uintptr_t consumer, cb_arg* a);

/* 1 once a cupy.ndarray was read through its attributes, -1 once one needed
 * the generic path, 0 before either (for tests). */
int cb_cupy_state(const cb_module* m);

#endif /* CUBRIDGE_CEXT_CUPY_IMPORT_H_ */
