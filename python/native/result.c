/* New result arrays. */
#include "result.h"

#include "array.h"

static PyObject* cb_numpy_empty(cb_state* st, int ndim, const int64_t* shape, int dtype) {
  const cb_dtype_info* d = cb_dtype(st, dtype);
  if (d->format[0] == '\0') {
    PyErr_Format(PyExc_TypeError,
                 "NumPy has no %s: pass out= (e.g. a cubridge.Array) for a %s result of host "
                 "inputs",
                 d->name, d->name);
    return NULL;
  }
  if (st->numpy_empty == NULL) {
    PyObject* np = PyImport_ImportModule("numpy");
    if (np == NULL) return NULL;
    st->numpy_empty = PyObject_GetAttrString(np, "empty");
    Py_DECREF(np);
    if (st->numpy_empty == NULL) return NULL;
  }
  PyObject* dims = PyTuple_New(ndim);
  if (dims == NULL) return NULL;
  for (int i = 0; i < ndim; i++) {
    PyObject* x = PyLong_FromLongLong(shape[i]);
    if (x == NULL) {
      Py_DECREF(dims);
      return NULL;
    }
    PyTuple_SetItem(dims, i, x);
  }
  PyObject* result = PyObject_CallFunctionObjArgs(st->numpy_empty, dims, d->name_obj, NULL);
  Py_DECREF(dims);
  return result;
}

PyObject* cb_new_result(cb_state* st, const cb_view* proto, int dtype, uintptr_t handle,
                        cubridge_stream stream) {
  int kind;
  if (proto->array != NULL) {
    kind = ((const cb_array*)proto->array)->kind;
  } else if (proto->memory == CUBRIDGE_MEMORY_DEVICE || proto->memory == CUBRIDGE_MEMORY_MANAGED) {
    kind = proto->memory;
  } else {
    return cb_numpy_empty(st, proto->ndim, proto->shape, dtype);
  }
  return (PyObject*)cb_array_new(st, proto->ndim, proto->shape, dtype, kind, proto->device, handle,
                                 stream);
}
