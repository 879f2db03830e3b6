/* The buffer protocol into the array view. */
#include "buffer_import.h"

#include "dtypes.h"

int cb_import_buffer(const cb_state* st, PyObject* obj, cb_view* v) {
  if (PyObject_GetBuffer(obj, &v->buffer, PyBUF_RECORDS_RO) < 0) {
    PyObject *t, *val, *tb;
    PyErr_Fetch(&t, &val, &tb);
    PyErr_Format(PyExc_TypeError, "%s: its buffer cannot be read as a typed array (%S)", v->name,
                 val ? val : Py_None);
    Py_XDECREF(t);
    Py_XDECREF(val);
    Py_XDECREF(tb);
    return -1;
  }
  v->has_buffer = 1;
  const Py_buffer* b = &v->buffer;
  v->data = b->buf;
  v->readonly = b->readonly;
  v->memory = CUBRIDGE_MEMORY_HOST;
  v->device = -1;
  v->dtype = cb_dtype_from_format(st, b->format, b->itemsize);
  if (v->dtype < 0) {
    PyOS_snprintf(v->dtype_desc, sizeof v->dtype_desc, "(buffer format '%.8s', itemsize %d)",
                  b->format ? b->format : "B", (int)b->itemsize);
  }
  v->ndim = b->ndim;
  if (b->ndim < 0 || b->ndim > CB_MAX_NDIM) return 0; /* the validator says so */
  for (int i = 0; i < b->ndim; i++) v->shape[i] = (int64_t)b->shape[i];
  if (b->strides != NULL && b->itemsize > 0) {
    v->has_strides = 1;
    for (int i = 0; i < b->ndim; i++) {
      Py_ssize_t s = b->strides[i];
      v->strides[i] = s % b->itemsize == 0 ? (int64_t)(s / b->itemsize) : CB_BAD_STRIDE;
    }
  }
  return 0;
}
