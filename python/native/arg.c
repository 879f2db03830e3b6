/* One array argument (arg.h). */
#include "arg.h"

#include <limits.h>

#include "dlpack.h"

void cb_arg_init(cb_arg* a, const char* name) {
  /* Every field but the storage arrays, read only below ndim after a reader
   * wrote them, and the Py_buffer, read only when has_buffer: a memset of the
   * whole argument (1.2 KB, three per call) showed as 3% of a small call. */
  cubridge_view* v = &a->v;
  v->struct_size = sizeof *v;
  v->name = name;
  v->data = NULL;
  v->dtype = -1;
  v->dtype_desc = a->dtype_desc;
  v->ndim = 0;
  v->shape = a->shape;
  v->strides = NULL;
  v->memory = CUBRIDGE_MEMORY_HOST;
  v->device = -1;
  v->flags = 0;
  v->source = NULL;
  v->producer = 0;
  v->array = NULL;
  v->n = v->nbytes = 0;
  a->dtype_desc[0] = '\0';
  a->keep = NULL;
  a->array = NULL;
  a->has_buffer = 0;
  a->dl = NULL;
  a->dl_versioned = 0;
}

void cb_arg_release(cb_arg* a) {
  /* Release callbacks (DLPack deleters, buffer release) may run Python code:
   * never with an exception pending. */
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (a->has_buffer) {
    PyBuffer_Release(&a->buffer);
    a->has_buffer = 0;
  }
  if (a->dl != NULL) {
    cb_dl_delete(a->dl, a->dl_versioned);
    a->dl = NULL;
  }
  a->array = NULL;
  Py_CLEAR(a->keep);
  if (type != NULL) {
    PyErr_Restore(type, value, tb);
  } else if (PyErr_Occurred()) {
    PyErr_WriteUnraisable(NULL); /* a deleter raised: report, do not fail the op */
  }
}

void cb_arg_reset(cb_arg* a) {
  cb_arg_release(a);
  cb_arg_init(a, a->v.name);
}

int cb_int64_tuple(PyObject* t, int64_t* out, int max, int* len) {
  if (!PyTuple_Check(t)) return -1;
  const Py_ssize_t n = PyTuple_Size(t);
  if (n > max) {
    *len = n > INT_MAX ? INT_MAX : (int)n;
    return CB_TUPLE_TOO_LONG;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    out[i] = PyLong_AsLongLong(PyTuple_GetItem(t, i));
    if (out[i] == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return -1;
    }
  }
  *len = (int)n;
  return 0;
}

void cb_arg_strides_from_bytes(cb_arg* a, size_t itemsize) {
  if (itemsize == 0) return;
  const int64_t size = (int64_t)itemsize;
  for (int i = 0; i < a->v.ndim; i++)
    a->strides[i] = a->strides[i] % size == 0 ? a->strides[i] / size : CUBRIDGE_STRIDE_NOT_WHOLE;
  a->v.strides = a->strides;
}
