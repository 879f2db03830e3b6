/* New result arrays. */
#include "result.h"

#include "array.h"
#include "numpy_new.h"

/* A numpy.ndarray result of the view's shape. */
static PyObject* cb_numpy_result(cb_state* st, const cb_view* proto, int dtype) {
  Py_ssize_t shape[CB_MAX_NDIM];
  for (int i = 0; i < proto->ndim; i++) shape[i] = (Py_ssize_t)proto->shape[i];
  return cb_numpy_new(st, proto->ndim, shape, dtype);
}

PyObject* cb_new_result(cb_state* st, const cb_view* proto, int dtype, uintptr_t handle,
                        cubridge_stream stream, int may_unpark) {
  int kind;
  if (proto->array != NULL) {
    kind = ((const cb_array*)proto->array)->kind;
  } else if (proto->memory == CUBRIDGE_MEMORY_DEVICE || proto->memory == CUBRIDGE_MEMORY_MANAGED) {
    kind = proto->memory;
  } else {
    return cb_numpy_result(st, proto, dtype);
  }
  return (PyObject*)cb_array_new(st, proto->ndim, proto->shape, dtype, kind, proto->device, handle,
                                 stream, may_unpark);
}
