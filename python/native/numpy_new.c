/* New numpy.ndarray results (numpy_new.h).
 *
 * numpy.empty called from C took about 120 ns of a 480 ns add(x, y) on
 * one-thousand-element NumPy arrays (build VM; NumPy's own add: 385 ns), most
 * of it in parsing its arguments. PyArray_NewFromDescr, taken from the table
 * NumPy exports for extensions (the _ARRAY_API capsule, the one import_array
 * reads), skips that. NumPy's headers are not used, the extension being
 * limited-API (abi3): the table's slots used here are fixed by NumPy's ABI,
 * the same in 1.x and 2.x (0 the ABI version, 2 the ndarray type, 94
 * PyArray_NewFromDescr). Before use, the ABI version, the type and a probe
 * array read through the buffer protocol are checked; if any disagrees,
 * results come from numpy.empty.
 */
#include "numpy_new.h"

#include "buffer_import.h"
#include "dtypes.h"

enum {
  CB_NPY_SLOT_ABI_VERSION = 0,
  CB_NPY_SLOT_NDARRAY = 2,
  CB_NPY_SLOT_NEW_FROM_DESCR = 94,
};

/* NumPy's ABI versions (NPY_ABI_VERSION) with the slots above. */
static int cb_npy_abi_known(unsigned int v) { return v == 0x01000009u || v == 0x02000000u; }

/* numpy.empty, numpy.ndarray and a numpy.dtype per cubridge dtype NumPy has;
 * 0 or -1. */
static int cb_numpy_load(cb_state* st) {
  PyObject* np = PyImport_ImportModule("numpy");
  if (np == NULL) return -1;
  PyObject* empty = PyObject_GetAttrString(np, "empty");
  PyObject* ndarray = empty ? PyObject_GetAttrString(np, "ndarray") : NULL;
  PyObject* make_dtype = ndarray ? PyObject_GetAttrString(np, "dtype") : NULL;
  Py_DECREF(np);
  int rc = make_dtype ? 0 : -1;
  if (rc == 0 && !PyType_Check(ndarray)) {
    PyErr_SetString(PyExc_TypeError, "numpy.ndarray is not a type");
    rc = -1;
  }
  /* numpy.dtype objects: numpy.empty parses a dtype name on every call. */
  for (int i = 0; rc == 0 && i < st->dtype_count; i++) {
    const cb_dtype_info* d = cb_dtype(st, i);
    if (d->format[0] == '\0') continue;
    Py_XDECREF(st->numpy_dtypes[i]); /* set by an earlier attempt that failed later */
    st->numpy_dtypes[i] = PyObject_CallFunctionObjArgs(make_dtype, d->name_obj, NULL);
    if (st->numpy_dtypes[i] == NULL) rc = -1;
  }
  Py_XDECREF(make_dtype);
  if (rc == 0) {
    st->numpy_empty = empty;
    st->numpy_ndarray = (PyTypeObject*)ndarray;
  } else {
    Py_XDECREF(empty);
    Py_XDECREF(ndarray);
  }
  return rc;
}

/* NumPy's C API table, or NULL (no exception) where it cannot be found. */
static void** cb_npy_api_table(void) {
  /* NumPy 2 keeps the module in numpy._core; 1.x in numpy.core. */
  PyObject* m = PyImport_ImportModule("numpy._core._multiarray_umath");
  if (m == NULL) {
    PyErr_Clear();
    m = PyImport_ImportModule("numpy.core._multiarray_umath");
  }
  PyObject* capsule = m ? PyObject_GetAttrString(m, "_ARRAY_API") : NULL;
  Py_XDECREF(m);
  void** api =
      capsule && PyCapsule_CheckExact(capsule) ? PyCapsule_GetPointer(capsule, NULL) : NULL;
  Py_XDECREF(capsule); /* the table is static in NumPy's module, never unloaded */
  PyErr_Clear();
  return api;
}

/* 1 when `probe` is a 2 x 3 C-contiguous writable float64 numpy.ndarray, as
 * the buffer-protocol importer and the view validator read it. */
static int cb_npy_probe_ok(cb_state* st, PyObject* probe) {
  if (probe == NULL || Py_TYPE(probe) != st->numpy_ndarray) {
    PyErr_Clear();
    return 0;
  }
  cb_view v;
  cb_view_init(&v, "probe");
  int ok = cb_import_buffer(st, probe, &v) == 0 && cb_view_validate(st, &v, 1) == 0 &&
           v.dtype == CUBRIDGE_FLOAT64 && v.ndim == 2 && v.shape[0] == 2 && v.shape[1] == 3;
  cb_view_release(&v);
  PyErr_Clear();
  return ok;
}

/* Decides st->numpy_new (after cb_numpy_load). */
static void cb_npy_check(cb_state* st) {
  st->numpy_new = -1;
  void** api = cb_npy_api_table();
  if (api == NULL) return;
  unsigned int (*abi_version)(void) = (unsigned int (*)(void))api[CB_NPY_SLOT_ABI_VERSION];
  if (!cb_npy_abi_known(abi_version())) return;
  if (api[CB_NPY_SLOT_NDARRAY] != (void*)st->numpy_ndarray) return;
  st->numpy_new_from_descr = (cb_npy_new_from_descr)api[CB_NPY_SLOT_NEW_FROM_DESCR];
  const Py_ssize_t dims[2] = {2, 3};
  PyObject* descr = Py_NewRef(st->numpy_dtypes[CUBRIDGE_FLOAT64]);
  PyObject* probe =
      st->numpy_new_from_descr(st->numpy_ndarray, descr, 2, dims, NULL, NULL, 0, NULL);
  if (cb_npy_probe_ok(st, probe)) st->numpy_new = 1;
  Py_XDECREF(probe);
}

PyObject* cb_numpy_new(cb_state* st, int ndim, const Py_ssize_t* shape, int dtype) {
  const cb_dtype_info* d = cb_dtype(st, dtype);
  if (d->format[0] == '\0') {
    PyErr_Format(PyExc_TypeError,
                 "NumPy has no %s: pass out= (e.g. a cubridge.Array) for a %s result of host "
                 "inputs",
                 d->name, d->name);
    return NULL;
  }
  if (st->numpy_empty == NULL && cb_numpy_load(st) < 0) return NULL;
  if (st->numpy_new == 0) cb_npy_check(st);
  if (st->numpy_new == 1) {
    /* PyArray_NewFromDescr steals the reference to the dtype. */
    return st->numpy_new_from_descr(st->numpy_ndarray, Py_NewRef(st->numpy_dtypes[dtype]), ndim,
                                    shape, NULL, NULL, 0, NULL);
  }
  PyObject* dims = PyTuple_New(ndim);
  for (int i = 0; dims != NULL && i < ndim; i++) {
    PyObject* x = PyLong_FromSsize_t(shape[i]);
    if (x == NULL)
      Py_CLEAR(dims);
    else
      PyTuple_SetItem(dims, i, x);
  }
  PyObject* result =
      dims ? PyObject_CallFunctionObjArgs(st->numpy_empty, dims, st->numpy_dtypes[dtype], NULL)
           : NULL;
  Py_XDECREF(dims);
  return result;
}

int cb_numpy_new_state(const cb_state* st) { return st->numpy_new; }
