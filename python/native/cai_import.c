/* __cuda_array_interface__ into an argument (cai_import.h). */
#include "cai_import.h"

#include "dtypes.h"
#include "module.h"

/* A tuple of ints of the interface (shape, strides) into `out`. */
static int cb_cai_ints(PyObject* t, const char* what, const cubridge_view* v, int64_t* out,
                       int* len) {
  if (cb_int64_tuple(t, out, CB_MAX_NDIM, len) == 0) return 0;
  PyErr_Format(PyExc_ValueError,
               "%s: __cuda_array_interface__ '%s' is not a tuple of at most %d ints in int64's "
               "range",
               v->name, what, CB_MAX_NDIM);
  return -1;
}

int cb_import_cai(const cb_module* m, PyObject* obj, PyObject* d, cb_arg* a) {
  cubridge_view* v = &a->v;
  const cb_names* names = &m->names;
  a->keep = Py_NewRef(d);
  if (!PyDict_Check(d)) {
    PyErr_Format(PyExc_TypeError, "%s.__cuda_array_interface__ is not a dict", v->name);
    return -1;
  }
  PyObject* shape = PyDict_GetItemWithError(d, names->shape); /* borrowed */
  PyObject* typestr = shape ? PyDict_GetItemWithError(d, names->typestr) : NULL;
  PyObject* data = typestr ? PyDict_GetItemWithError(d, names->data) : NULL;
  if (data == NULL || !PyUnicode_Check(typestr) || !PyTuple_Check(data) ||
      PyTuple_Size(data) != 2) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError,
                   "%s: __cuda_array_interface__ lacks a valid shape, typestr or data", v->name);
    return -1;
  }
  PyObject* mask = PyDict_GetItemWithError(d, names->mask);
  if (mask != NULL && mask != Py_None) {
    PyErr_Format(PyExc_ValueError, "%s: masked CUDA arrays are not supported", v->name);
    return -1;
  }
  if (PyErr_Occurred() || cb_cai_ints(shape, "shape", v, a->shape, &v->ndim) < 0) return -1;
  const char* ts = PyUnicode_AsUTF8AndSize(typestr, NULL);
  if (ts == NULL) return -1;
  v->dtype = cb_dtype_from_typestr(m, ts);
  if (v->dtype < 0) {
    /* torch exports bfloat16 as typestr "<V2" (NumPy has no bfloat16). */
    if (ts[0] != '\0' && ts[1] == 'V' && PyObject_HasAttr(obj, names->dlpack)) return CB_TRY_DLPACK;
    PyOS_snprintf(a->dtype_desc, sizeof a->dtype_desc, "(typestr '%.20s')", ts);
  }
  PyObject* strides = PyDict_GetItemWithError(d, names->strides);
  if (strides != NULL && strides != Py_None) {
    int n;
    if (cb_cai_ints(strides, "strides", v, a->strides, &n) < 0) return -1;
    if (n != v->ndim) {
      PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ strides do not match shape",
                   v->name);
      return -1;
    }
    const cb_dtype_info* info = cb_dtype(m, v->dtype);
    cb_arg_strides_from_bytes(a, info ? info->size : 0);
  } else if (PyErr_Occurred()) {
    return -1;
  }
  PyObject* ptr = PyTuple_GetItem(data, 0);
  if (!PyLong_Check(ptr)) {
    PyObject* type = PyType_GetName(Py_TYPE(ptr));
    if (type != NULL)
      PyErr_Format(PyExc_TypeError,
                   "%s: __cuda_array_interface__ 'data' must be (pointer: int, read_only: bool); "
                   "its pointer is a %U",
                   v->name, type);
    Py_XDECREF(type);
    return -1;
  }
  v->data = PyLong_AsVoidPtr(ptr);
  if (v->data == NULL && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError,
                 "%s: __cuda_array_interface__ 'data' pointer %R is not an address", v->name, ptr);
    return -1;
  }
  int readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1));
  if (readonly < 0) return -1;
  /* The interface says nothing of the kind of memory: CUDA memory, which the
   * runtime asks after (managed memory, for instance). */
  v->flags = (readonly ? CUBRIDGE_VIEW_READONLY : 0) | CUBRIDGE_VIEW_ASK_MEMORY;
  v->memory = CUBRIDGE_MEMORY_DEVICE;
  v->device = -1; /* unknown: the library looks */
  v->source = "__cuda_array_interface__";
  /* v3: the producer's stream must be done with the data before we use it. */
  PyObject* s = PyDict_GetItemWithError(d, names->stream);
  if (s != NULL && s != Py_None) {
    unsigned long long h = PyLong_Check(s) ? PyLong_AsUnsignedLongLong(s) : (unsigned long long)-1;
    if (h == (unsigned long long)-1) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError,
                   "%s: __cuda_array_interface__ stream must be a non-negative int", v->name);
      return -1;
    }
    if (h == 0) {
      PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ stream 0 is disallowed",
                   v->name);
      return -1;
    }
    v->producer = (uintptr_t)h;
  }
  return PyErr_Occurred() ? -1 : 0;
}
