/* Importing a cupy.ndarray from the attributes its __cuda_array_interface__
 * is built from (data.ptr, data.device_id, shape, strides, dtype) rather than
 * through that property, which builds a dict of seven entries on every access
 * (about 0.5 us on the GPU host, against 0.2 for the attributes). */
#ifndef CUBRIDGE_CEXT_CUPY_IMPORT_H_
#define CUBRIDGE_CEXT_CUPY_IMPORT_H_

#include "view.h"

/* Returned (no exception set) when the array does not have the attributes
 * (a CuPy of another shape): the caller then uses the generic path. */
#define CB_CUPY_GENERIC (-2)

/* Fills `v` from the cupy.ndarray `obj` (kept alive in v->keep); -1 with an
 * exception. It does not say when the data is ready: the caller orders the op
 * after CuPy's current stream (cb_cupy_current_stream). */
int cb_import_cupy(cb_state* st, PyObject* obj, cb_view* v);

/* CuPy's current stream of the current device, as its interface names it
 * (Stream.null as CuPy's default stream pointer). -1 with an exception. */
int cb_cupy_current_stream(cb_state* st, uintptr_t* handle);

/* 1 once a cupy.ndarray was read through its attributes, -1 once one needed
 * the generic path, 0 before either (for tests). */
int cb_cupy_state(const cb_state* st);

#endif /* CUBRIDGE_CEXT_CUPY_IMPORT_H_ */
