/* New result arrays (results.h).
 *
 * NumPy results come from numpy.empty, NumPy's public Python API, called with
 * a numpy.dtype object (a dtype name would be parsed on every call). NumPy's C API would need
 * NumPy's headers at build time, which an abi3 extension built without NumPy does not have; the
 * table behind them, read by slot number, is what issue 41 took out.
 */
#include "results.h"

#include "array.h"
#include "dtypes.h"
#include "module.h"

int cb_numpy_traverse(cb_module* m, visitproc visit, void* arg) {
  Py_VISIT(m->numpy.empty);
  CB_VISIT_ALL(m->numpy.dtypes, CB_MAX_DTYPES);
  return 0;
}

void cb_numpy_clear(cb_module* m) {
  Py_CLEAR(m->numpy.empty);
  CB_CLEAR_ALL(m->numpy.dtypes, CB_MAX_DTYPES);
}

/* numpy.empty and the numpy.dtype of each cubridge dtype NumPy has; 0 or -1. */
static int cb_numpy_load(cb_module* m) {
  PyObject* np = PyImport_ImportModule("numpy");
  if (np == NULL) return -1;
  PyObject* empty = PyObject_GetAttrString(np, "empty");
  PyObject* make_dtype = empty ? PyObject_GetAttrString(np, "dtype") : NULL;
  Py_DECREF(np);
  int rc = make_dtype ? 0 : -1;
  for (int i = 0; rc == 0 && i < m->dtypes.count; i++) {
    const cb_dtype_info* d = cb_dtype(m, i);
    if (d->format[0] == '\0') continue;
    Py_CLEAR(m->numpy.dtypes[i]); /* set by an earlier attempt that failed later */
    m->numpy.dtypes[i] = PyObject_CallFunctionObjArgs(make_dtype, d->name_obj, NULL);
    if (m->numpy.dtypes[i] == NULL) rc = -1;
  }
  Py_XDECREF(make_dtype);
  if (rc == 0) {
    m->numpy.empty = empty;
  } else {
    Py_XDECREF(empty);
  }
  return rc;
}

PyObject* cb_numpy_new(cb_module* m, int ndim, const Py_ssize_t* shape, int dtype) {
  const cb_dtype_info* d = cb_dtype(m, dtype);
  if (d->format[0] == '\0') {
    PyErr_Format(PyExc_TypeError,
                 "NumPy has no %s: pass out= (e.g. a cubridge.Array) for a %s result of host "
                 "inputs",
                 d->name, d->name);
    return NULL;
  }
  if (m->numpy.empty == NULL && cb_numpy_load(m) < 0) return NULL;
  PyObject* dims = PyTuple_New(ndim);
  for (int i = 0; dims != NULL && i < ndim; i++) {
    PyObject* x = PyLong_FromSsize_t(shape[i]);
    if (x == NULL)
      Py_CLEAR(dims);
    else
      PyTuple_SetItem(dims, i, x);
  }
  if (dims == NULL) return NULL;
  PyObject* result =
      PyObject_CallFunctionObjArgs(m->numpy.empty, dims, m->numpy.dtypes[dtype], NULL);
  Py_DECREF(dims);
  return result;
}

PyObject* cb_new_result_shaped(cb_module* m, const cb_arg* proto, int ndim, const int64_t* shape,
                               int dtype, cubridge_stream stream) {
  int kind = CUBRIDGE_MEMORY_DEVICE, device = -1;
  if (proto != NULL && proto->array != NULL) {
    kind = ((const cb_array*)proto->array)->kind;
    device = proto->v.device;
  } else if (proto != NULL && (proto->v.memory == CUBRIDGE_MEMORY_DEVICE ||
                               proto->v.memory == CUBRIDGE_MEMORY_MANAGED)) {
    kind = proto->v.memory;
    device = proto->v.device;
  } else if (proto != NULL) {
    Py_ssize_t dims[CB_MAX_NDIM];
    for (int i = 0; i < ndim; i++) dims[i] = (Py_ssize_t)shape[i];
    return cb_numpy_new(m, ndim, dims, dtype);
  }
  return (PyObject*)cb_array_new(m, ndim, shape, dtype, kind, device, stream);
}

PyObject* cb_new_result(cb_module* m, const cb_arg* proto, int dtype, cubridge_stream stream) {
  return cb_new_result_shaped(m, proto, proto->v.ndim, proto->v.shape, dtype, stream);
}
