/* The buffer protocol into an argument (buffer_import.h). NumPy's ndarrays
 * come this way too: Python's protocol is NumPy's public interface to their
 * memory for a limited-API extension (its C API needs NumPy's headers). */
#include "buffer_import.h"

#include "dtypes.h"

int cb_import_buffer(const cb_module* m, PyObject* obj, cb_arg* a) {
  cubridge_view* v = &a->v;
  if (PyObject_GetBuffer(obj, &a->buffer, PyBUF_RECORDS_RO) < 0) {
    PyObject *t, *val, *tb;
    PyErr_Fetch(&t, &val, &tb);
    PyErr_Format(PyExc_TypeError, "%s: its buffer cannot be read as a typed array (%S)", v->name,
                 val ? val : Py_None);
    Py_XDECREF(t);
    Py_XDECREF(val);
    Py_XDECREF(tb);
    return -1;
  }
  a->has_buffer = 1;
  const Py_buffer* b = &a->buffer;
  v->data = b->buf;
  v->flags = b->readonly ? CUBRIDGE_VIEW_READONLY : 0;
  v->memory = CUBRIDGE_MEMORY_HOST;
  v->device = -1;
  v->dtype = cb_dtype_from_format(m, b->format, b->itemsize);
  if (v->dtype < 0) {
    PyOS_snprintf(a->dtype_desc, sizeof a->dtype_desc, "(buffer format '%.8s', itemsize %d)",
                  b->format ? b->format : "B", (int)b->itemsize);
  }
  v->ndim = b->ndim;
  if (b->ndim < 0 || b->ndim > CB_MAX_NDIM) return 0; /* the check says so */
  for (int i = 0; i < b->ndim; i++) a->shape[i] = (int64_t)b->shape[i];
  if (b->strides != NULL && b->itemsize > 0) {
    for (int i = 0; i < b->ndim; i++) a->strides[i] = (int64_t)b->strides[i];
    cb_arg_strides_from_bytes(a, (size_t)b->itemsize);
  }
  return 0;
}
