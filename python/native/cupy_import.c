/* cupy.ndarray into the array view (cupy_import.h).
 *
 * The attributes read are the public ones CuPy's own __cuda_array_interface__
 * reads (data.ptr, data.device_id, shape, strides, dtype), and the stream is
 * the one that property names (CuPy's current stream), so what cubridge does
 * with the array is what it did through the interface. On the GPU host, three
 * CuPy arrays cost add(out=) 3.1-3.3 us over three cubridge Arrays through the
 * interface. */
#include "cupy_import.h"

#include "dtypes.h"

/* cupy.cuda.get_current_stream, and the pointer CuPy's interface names for
 * Stream.null (its ptr 0): cupy_backends' default stream pointer, 1 (legacy)
 * or 2 (per-thread, CUPY_CUDA_PER_THREAD_DEFAULT_STREAM), fixed at import. */
static int cb_cupy_setup(cb_state* st) {
  PyObject* cuda = PyImport_ImportModule("cupy.cuda");
  PyObject* current = cuda ? PyObject_GetAttrString(cuda, "get_current_stream") : NULL;
  Py_XDECREF(cuda);
  PyObject* backends = current ? PyImport_ImportModule("cupy_backends.cuda.stream") : NULL;
  PyObject* fn = backends ? PyObject_GetAttrString(backends, "get_default_stream_ptr") : NULL;
  Py_XDECREF(backends);
  PyObject* ptr = fn ? PyObject_CallNoArgs(fn) : NULL;
  Py_XDECREF(fn);
  unsigned long long def = ptr ? PyLong_AsUnsignedLongLong(ptr) : 0;
  Py_XDECREF(ptr);
  if (ptr == NULL || PyErr_Occurred() || def == 0) {
    Py_XDECREF(current);
    return -1;
  }
  st->cupy_current_stream = current;
  st->cupy_default_stream = (uintptr_t)def;
  return 0;
}

/* The cubridge dtype of a numpy.dtype object (-1: none, described in v; -2:
 * an error), remembered per object when cubridge has it: CuPy's dtypes are
 * NumPy's singletons. */
static int cb_cupy_dtype(cb_state* st, PyObject* dtype, cb_view* v) {
  for (int i = 0; i < CB_CUPY_DTYPES; i++) {
    if (st->cupy_dtype_seen[i] == dtype) return st->cupy_dtype_code[i];
  }
  PyObject* typestr = PyObject_GetAttr(dtype, st->s_str);
  const char* ts = typestr ? PyUnicode_AsUTF8AndSize(typestr, NULL) : NULL;
  if (ts == NULL) {
    Py_XDECREF(typestr);
    return -2;
  }
  int code = cb_dtype_from_typestr(st, ts);
  if (code < 0) { /* not remembered: each error message says what it was */
    PyOS_snprintf(v->dtype_desc, sizeof v->dtype_desc, "(typestr '%.20s')", ts);
    Py_DECREF(typestr);
    return code;
  }
  Py_DECREF(typestr);
  int slot = st->cupy_dtype_next;
  st->cupy_dtype_next = (slot + 1) % CB_CUPY_DTYPES;
  PyObject* old = st->cupy_dtype_seen[slot];
  st->cupy_dtype_seen[slot] = Py_NewRef(dtype);
  Py_XDECREF(old);
  st->cupy_dtype_code[slot] = code;
  return code;
}

/* Fills `v` from the attributes: 0, -1 with an exception. */
static int cb_cupy_fill(cb_state* st, cb_view* v, PyObject* ptr, PyObject* device, PyObject* shape,
                        PyObject* strides, PyObject* dtype) {
  v->dtype = cb_cupy_dtype(st, dtype, v);
  if (v->dtype == -2) return -1;
  int rc = cb_int64_tuple(shape, v->shape, CB_MAX_NDIM, &v->ndim);
  if (rc == CB_TUPLE_TOO_LONG) return 0; /* the validator reports the dimensions */
  if (rc < 0) {
    PyErr_Format(PyExc_ValueError, "%s: CuPy gave a shape that is not a tuple of ints", v->name);
    return -1;
  }
  int n = 0;
  if (cb_int64_tuple(strides, v->strides, CB_MAX_NDIM, &n) != 0 || n != v->ndim) {
    PyErr_Format(PyExc_ValueError, "%s: CuPy gave strides that do not match its shape", v->name);
    return -1;
  }
  cb_view_strides_from_bytes(st, v);
  v->data = PyLong_AsVoidPtr(ptr);
  if (v->data == NULL && PyErr_Occurred()) return -1;
  v->device = (int)PyLong_AsLong(device);
  if (v->device == -1 && PyErr_Occurred()) return -1;
  v->memory = CUBRIDGE_MEMORY_DEVICE;
  v->readonly = 0; /* CuPy arrays are always writable */
  return 0;
}

int cb_import_cupy(cb_state* st, PyObject* obj, cb_view* v) {
  if (st->cupy_ready == 0) {
    st->cupy_ready = cb_cupy_setup(st) == 0 ? 1 : -1;
    PyErr_Clear();
  }
  if (st->cupy_ready < 0) {
    st->cupy_read = -1;
    return CB_CUPY_GENERIC;
  }
  PyObject* data = PyObject_GetAttr(obj, st->s_data);
  PyObject* ptr = data ? PyObject_GetAttr(data, st->s_ptr) : NULL;
  PyObject* device = ptr ? PyObject_GetAttr(data, st->s_device_id) : NULL;
  PyObject* shape = device ? PyObject_GetAttr(obj, st->s_shape) : NULL;
  PyObject* strides = shape ? PyObject_GetAttr(obj, st->s_strides) : NULL;
  PyObject* dtype = strides ? PyObject_GetAttr(obj, st->s_dtype) : NULL;
  int rc;
  if (dtype == NULL) {
    PyErr_Clear(); /* not the attributes of the CuPy we know: its interface says */
    rc = CB_CUPY_GENERIC;
  } else {
    rc = cb_cupy_fill(st, v, ptr, device, shape, strides, dtype);
  }
  Py_XDECREF(data);
  Py_XDECREF(ptr);
  Py_XDECREF(device);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(dtype);
  st->cupy_read = rc == CB_CUPY_GENERIC ? -1 : 1;
  if (rc == 0) v->keep = Py_NewRef(obj);
  return rc;
}

int cb_cupy_current_stream(cb_state* st, uintptr_t* handle) {
  *handle = 0;
  PyObject* stream = PyObject_CallNoArgs(st->cupy_current_stream);
  PyObject* ptr = stream ? PyObject_GetAttr(stream, st->s_ptr) : NULL;
  Py_XDECREF(stream);
  if (ptr == NULL) return -1;
  unsigned long long h = PyLong_AsUnsignedLongLong(ptr);
  Py_DECREF(ptr);
  if (PyErr_Occurred()) return -1;
  *handle = h != 0 ? (uintptr_t)h : st->cupy_default_stream;
  return 0;
}

int cb_cupy_state(const cb_state* st) { return st->cupy_read; }
