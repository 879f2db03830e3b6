/* The one array view and its one validator. */
#include "view.h"

#include <limits.h>
#include <string.h>

#include "dlpack.h"
#include "dtypes.h"

void cb_view_init(cb_view* v, const char* name) {
  /* Every field but the arrays: shape and strides are read only below ndim,
   * after an importer wrote them, and the Py_buffer only when has_buffer. A
   * memset of the whole view (1.2 KB, three per call) showed as 3% of a small
   * call in perf. */
  v->name = name;
  v->data = NULL;
  v->dtype = -1;
  v->dtype_desc[0] = '\0';
  v->ndim = 0;
  v->has_strides = 0;
  v->n = 0;
  v->nbytes = 0;
  v->memory = CUBRIDGE_MEMORY_HOST;
  v->device = -1;
  v->readonly = 0;
  v->producer_stream = 0;
  v->array = NULL;
  v->keep = NULL;
  v->has_buffer = 0;
  v->dl = NULL;
  v->dl_versioned = 0;
}

static int cb_check_strides(const cb_view* v) {
  if (!v->has_strides || v->n == 0) return 0;
  int64_t expected = 1;
  for (int i = v->ndim - 1; i >= 0; i--) {
    if (v->shape[i] != 1 && v->strides[i] != expected) {
      if (v->strides[i] == CB_BAD_STRIDE) {
        PyErr_Format(PyExc_ValueError,
                     "%s must be C-contiguous (its stride in dimension %d is not a multiple of "
                     "the item size); pass a contiguous copy, e.g. numpy.ascontiguousarray(%s)",
                     v->name, i, v->name);
      } else {
        PyErr_Format(PyExc_ValueError,
                     "%s must be C-contiguous (its stride %lld elements in dimension %d should "
                     "be %lld); pass a contiguous copy, e.g. numpy.ascontiguousarray(%s)",
                     v->name, (long long)v->strides[i], i, (long long)expected, v->name);
      }
      return -1;
    }
    expected *= v->shape[i];
  }
  return 0;
}

int cb_view_validate(const cb_state* st, cb_view* v, int writable) {
  if (v->ndim < 0 || v->ndim > CB_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "%s has %d dimensions; cubridge supports at most %d", v->name,
                 v->ndim, CB_MAX_NDIM);
    return -1;
  }
  const cb_dtype_info* d = cb_dtype(st, v->dtype);
  /* Overflow is checked against the real item size, or 1 before the dtype
   * check (whose error comes after the shape's). Multiplications that report
   * overflow, not divisions: two 64-bit divisions per dimension were most of
   * this function's 7% of a small call in perf. */
  size_t itemsize = d ? d->size : 1;
  size_t n = 1, bytes;
  int overflow = 0, empty = 0;
  for (int i = 0; i < v->ndim; i++) {
    int64_t dim = v->shape[i];
    if (dim < 0) {
      PyErr_Format(PyExc_ValueError, "%s has a negative dimension (%lld in dimension %d)", v->name,
                   (long long)dim, i);
      return -1;
    }
    if (dim == 0) empty = 1;
    overflow |= __builtin_mul_overflow(n, (size_t)dim, &n);
  }
  overflow |= __builtin_mul_overflow(n, itemsize, &bytes) || bytes > (size_t)PY_SSIZE_T_MAX;
  if (overflow && !empty) {
    PyErr_Format(PyExc_ValueError, "%s is too large: its element count overflows", v->name);
    return -1;
  }
  if (d == NULL) {
    char list[256];
    PyErr_Format(PyExc_TypeError, "%s has unsupported dtype %s; cubridge supports %s", v->name,
                 v->dtype_desc[0] ? v->dtype_desc : "(unknown)",
                 cb_dtype_list(st, list, sizeof list));
    return -1;
  }
  v->n = n;
  v->nbytes = n * d->size;
  if (cb_check_strides(v) < 0) return -1;
  if (writable && v->readonly) {
    PyErr_Format(PyExc_ValueError, "%s is read-only; pass a writable array", v->name);
    return -1;
  }
  return 0;
}

void cb_view_release(cb_view* v) {
  /* Release callbacks (DLPack deleters, buffer release) may run Python code:
   * never with an exception pending. */
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (v->has_buffer) {
    PyBuffer_Release(&v->buffer);
    v->has_buffer = 0;
  }
  if (v->dl != NULL) {
    cb_dl_delete(v->dl, v->dl_versioned);
    v->dl = NULL;
  }
  Py_CLEAR(v->array);
  Py_CLEAR(v->keep);
  if (type != NULL) {
    PyErr_Restore(type, value, tb);
  } else if (PyErr_Occurred()) {
    PyErr_WriteUnraisable(NULL); /* a deleter raised: report, do not fail the op */
  }
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

void cb_view_strides_from_bytes(const cb_state* st, cb_view* v) {
  const cb_dtype_info* info = cb_dtype(st, v->dtype);
  if (info == NULL) return;
  const int64_t size = (int64_t)info->size;
  for (int i = 0; i < v->ndim; i++)
    v->strides[i] = v->strides[i] % size == 0 ? v->strides[i] / size : CB_BAD_STRIDE;
  v->has_strides = 1;
}

void cb_view_ask_memory(cb_view* v) {
  int kind, device;
  if (v->data != NULL && cubridge_pointer_kind(v->data, &kind, &device) == CUBRIDGE_OK) {
    v->memory = kind;
    v->device = device;
  }
}
