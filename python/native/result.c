/* New result arrays. */
#include "result.h"

#include "array.h"

PyObject* cb_numpy_empty(cb_state* st, PyObject* shape, int dtype) {
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
    PyObject* make_dtype = st->numpy_empty ? PyObject_GetAttrString(np, "dtype") : NULL;
    Py_DECREF(np);
    if (make_dtype == NULL) {
      Py_CLEAR(st->numpy_empty);
      return NULL;
    }
    /* numpy.dtype objects: numpy.empty parses a dtype name on every call. */
    for (int i = 0; i < st->dtype_count; i++) {
      const cb_dtype_info* di = cb_dtype(st, i);
      if (di->format[0] == '\0') continue;
      Py_XDECREF(st->numpy_dtypes[i]); /* set by an earlier attempt that failed later */
      st->numpy_dtypes[i] = PyObject_CallFunctionObjArgs(make_dtype, di->name_obj, NULL);
      if (st->numpy_dtypes[i] == NULL) {
        Py_DECREF(make_dtype);
        Py_CLEAR(st->numpy_empty);
        return NULL;
      }
    }
    Py_DECREF(make_dtype);
  }
  return PyObject_CallFunctionObjArgs(st->numpy_empty, shape, st->numpy_dtypes[dtype], NULL);
}

/* numpy.empty(shape, dtype) for an int64 shape (an int when 1-D). */
static PyObject* cb_numpy_empty_shaped(cb_state* st, int ndim, const int64_t* shape, int dtype) {
  PyObject* dims = ndim == 1 ? PyLong_FromLongLong(shape[0]) : PyTuple_New(ndim);
  if (dims == NULL) return NULL;
  for (int i = 0; ndim != 1 && i < ndim; i++) {
    PyObject* x = PyLong_FromLongLong(shape[i]);
    if (x == NULL) {
      Py_DECREF(dims);
      return NULL;
    }
    PyTuple_SetItem(dims, i, x);
  }
  PyObject* result = cb_numpy_empty(st, dims, dtype);
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
    return cb_numpy_empty_shaped(st, proto->ndim, proto->shape, dtype);
  }
  return (PyObject*)cb_array_new(st, proto->ndim, proto->shape, dtype, kind, proto->device, handle,
                                 stream);
}
