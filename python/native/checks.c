/* Checks between the array arguments of one call. */
#include "checks.h"

#include "dtypes.h"

static PyObject* cb_shape_repr(const cubridge_view* a) {
  PyObject* t = PyTuple_New(a->ndim);
  if (t == NULL) return NULL;
  for (int i = 0; i < a->ndim; i++) {
    PyObject* d = PyLong_FromLongLong(a->shape[i]);
    if (d == NULL) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, i, d);
  }
  PyObject* s = PyObject_Repr(t);
  Py_DECREF(t);
  return s;
}

int cb_same_dtype(const cb_module* m, const cb_arg* x, const cb_arg* y) {
  const cubridge_view *a = &x->v, *b = &y->v;
  if (a->dtype == b->dtype) return 0;
  PyErr_Format(PyExc_TypeError,
               "%s has dtype %s but %s has dtype %s; they must match (convert with "
               "cubridge.astype)",
               b->name, cb_dtype(m, b->dtype)->name, a->name, cb_dtype(m, a->dtype)->name);
  return -1;
}

int cb_same_shape(const cb_arg* x, const cb_arg* y) {
  const cubridge_view *a = &x->v, *b = &y->v;
  int same = a->ndim == b->ndim;
  for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
  if (same) return 0;
  if (a->ndim == 1 && b->ndim == 1) {
    PyErr_Format(PyExc_ValueError, "%s has length %lld but %s has length %lld", b->name,
                 (long long)b->shape[0], a->name, (long long)a->shape[0]);
    return -1;
  }
  PyObject* sa = cb_shape_repr(a);
  PyObject* sb = cb_shape_repr(b);
  if (sa && sb)
    PyErr_Format(PyExc_ValueError, "%s has shape %U but %s has shape %U (no broadcasting)", b->name,
                 sb, a->name, sa);
  Py_XDECREF(sa);
  Py_XDECREF(sb);
  return -1;
}

int cb_check_overlap(const cb_arg* x, const cb_arg* y) {
  const cubridge_view *a = &x->v, *b = &y->v;
  uintptr_t pa = (uintptr_t)a->data, pb = (uintptr_t)b->data;
  if (a->nbytes == 0 || b->nbytes == 0 || pa == pb) return 0;
  if (pa < pb + b->nbytes && pb < pa + a->nbytes) {
    PyErr_Format(PyExc_ValueError, "%s partially overlaps %s in memory", b->name, a->name);
    return -1;
  }
  return 0;
}
