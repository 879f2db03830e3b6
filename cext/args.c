/* Array arguments: cubridge.Array, the buffer protocol and
 * __cuda_array_interface__ (DLPack is in dlpack.c); streams; result arrays. */
#include <string.h>

#include "native.h"

/* ---- streams ---------------------------------------------------------- */

static int cb_handle_from_int(PyObject* obj, uintptr_t* handle) {
  unsigned long long v = PyLong_AsUnsignedLongLong(obj);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_SetString(PyExc_ValueError, "stream must be a non-negative cudaStream_t handle");
    return -1;
  }
  *handle = (uintptr_t)v;
  return 0;
}

int cb_stream_handle(PyObject* obj, uintptr_t* handle) {
  *handle = 0;
  if (obj == NULL || obj == Py_None) return 0;
  if (PyLong_Check(obj)) return cb_handle_from_int(obj, handle);
  PyObject* v = NULL;
  if (PyObject_HasAttrString(obj, "__cuda_stream__")) {
    /* CUDA stream protocol: __cuda_stream__() -> (version, handle). */
    PyObject* t = PyObject_CallMethod(obj, "__cuda_stream__", NULL);
    if (t == NULL) return -1;
    if (PyTuple_Check(t) && PyTuple_Size(t) == 2) {
      v = PyTuple_GetItem(t, 1);
      Py_XINCREF(v);
    }
    Py_DECREF(t);
  } else if (PyObject_HasAttrString(obj, "ptr")) { /* CuPy */
    v = PyObject_GetAttrString(obj, "ptr");
  } else if (PyObject_HasAttrString(obj, "cuda_stream")) { /* torch */
    v = PyObject_GetAttrString(obj, "cuda_stream");
  } else {
    cb_type_error("stream",
                  "None, an int cudaStream_t, or an object with __cuda_stream__, .ptr or "
                  ".cuda_stream",
                  obj);
    return -1;
  }
  if (v == NULL || !PyLong_Check(v)) {
    Py_XDECREF(v);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "stream: its handle is not an int");
    return -1;
  }
  int rc = cb_handle_from_int(v, handle);
  Py_DECREF(v);
  return rc;
}

int cb_stream_from_handle(uintptr_t handle, cubridge_stream* stream) {
  *stream = NULL;
  if (handle == 0) return 0;
  cubridge_status st = cubridge_stream_from_handle(handle, stream);
  if (st != CUBRIDGE_OK) {
    cb_raise_status(st);
    return -1;
  }
  return 0;
}

void cb_stream_release(cubridge_stream stream) {
  if (stream != NULL) cubridge_stream_destroy(stream); /* frees the wrapper only */
}

int cb_sync_handle(uintptr_t handle) {
  if (cb_backend() != CUBRIDGE_BACKEND_CUDA) return PyErr_Occurred() ? -1 : 0;
  cubridge_stream s;
  if (cb_stream_from_handle(handle, &s) < 0) return -1;
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_stream_synchronize(s);
  Py_END_ALLOW_THREADS cb_stream_release(s);
  if (st != CUBRIDGE_OK) {
    cb_raise_status(st);
    return -1;
  }
  return 0;
}

/* ---- common checks ---------------------------------------------------- */

static int cb_set_shape(cb_arg* arg, int ndim, const void* shape, int shape_is_ssize) {
  if (ndim < 0 || ndim > CB_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "%s has %d dimensions; cubridge supports at most %d", arg->name,
                 ndim, CB_MAX_NDIM);
    return -1;
  }
  arg->ndim = ndim;
  arg->n = 1;
  for (int i = 0; i < ndim; i++) {
    int64_t d =
        shape_is_ssize ? (int64_t)((const Py_ssize_t*)shape)[i] : ((const int64_t*)shape)[i];
    if (d < 0) {
      PyErr_Format(PyExc_ValueError, "%s has a negative dimension", arg->name);
      return -1;
    }
    arg->shape[i] = d;
    arg->n *= (size_t)d;
  }
  return 0;
}

/* strides in bytes (NULL: contiguous). */
static int cb_check_contiguous(const cb_arg* arg, const int64_t* strides, size_t itemsize) {
  if (strides == NULL || arg->n == 0) return 0;
  int64_t expected = (int64_t)itemsize;
  for (int i = arg->ndim - 1; i >= 0; i--) {
    if (arg->shape[i] != 1 && strides[i] != expected) {
      PyErr_Format(PyExc_ValueError,
                   "%s must be C-contiguous (its stride %lld bytes in dimension %d should be "
                   "%lld); pass a contiguous copy, e.g. numpy.ascontiguousarray(%s)",
                   arg->name, (long long)strides[i], i, (long long)expected, arg->name);
      return -1;
    }
    expected *= arg->shape[i];
  }
  return 0;
}

static int cb_unsupported_dtype(const cb_arg* arg, const char* what) {
  PyErr_Format(PyExc_TypeError,
               "%s has unsupported dtype %s; cubridge supports float32, float64, int32, int64, "
               "float16 and bfloat16",
               arg->name, what);
  return -1;
}

/* ---- buffer protocol -------------------------------------------------- */

static int cb_dtype_from_format(const char* fmt, Py_ssize_t itemsize) {
  if (fmt == NULL) fmt = "B";
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
  if (fmt[0] == '\0' || fmt[1] != '\0') return -1;
  switch (fmt[0]) {
    case 'f':
      return itemsize == 4 ? CUBRIDGE_FLOAT32 : -1;
    case 'd':
      return itemsize == 8 ? CUBRIDGE_FLOAT64 : -1;
    case 'e':
      return itemsize == 2 ? CUBRIDGE_FLOAT16 : -1;
    case 'i':
    case 'l':
    case 'q':
      return itemsize == 4 ? CUBRIDGE_INT32 : itemsize == 8 ? CUBRIDGE_INT64 : -1;
    default:
      return -1;
  }
}

static int cb_arg_from_buffer(PyObject* obj, int writable, cb_arg* arg) {
  if (PyObject_GetBuffer(obj, &arg->view, PyBUF_RECORDS_RO) < 0) {
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_Format(PyExc_TypeError, "%s: its buffer cannot be read as a typed array (%S)", arg->name,
                 v ? v : Py_None);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return -1;
  }
  arg->has_view = 1;
  Py_buffer* view = &arg->view;
  arg->ptr = view->buf;
  arg->readonly = view->readonly;
  arg->home = CB_HOME_HOST;
  arg->device = -1;
  arg->dtype = cb_dtype_from_format(view->format, view->itemsize);
  if (arg->dtype < 0) {
    char what[64];
    PyOS_snprintf(what, sizeof what, "(buffer format '%s', itemsize %d)",
                  view->format ? view->format : "B", (int)view->itemsize);
    return cb_unsupported_dtype(arg, what);
  }
  if (view->ndim == 0) {
    arg->ndim = 0;
    arg->n = 1;
  } else if (cb_set_shape(arg, view->ndim, view->shape, 1) < 0) {
    return -1;
  }
  if (view->strides != NULL) {
    int64_t strides[CB_MAX_NDIM];
    for (int i = 0; i < arg->ndim; i++) strides[i] = (int64_t)view->strides[i];
    if (cb_check_contiguous(arg, strides, (size_t)view->itemsize) < 0) return -1;
  }
  if (writable && arg->readonly) {
    PyErr_Format(PyExc_ValueError, "%s is read-only; pass a writable array", arg->name);
    return -1;
  }
  return 0;
}

/* ---- __cuda_array_interface__ ---------------------------------------- */

static int cb_dtype_from_typestr(const char* s) {
  if (s[0] != '<' && s[0] != '=' && s[0] != '|') return -1;
  s++;
  if (strcmp(s, "f4") == 0) return CUBRIDGE_FLOAT32;
  if (strcmp(s, "f8") == 0) return CUBRIDGE_FLOAT64;
  if (strcmp(s, "i4") == 0) return CUBRIDGE_INT32;
  if (strcmp(s, "i8") == 0) return CUBRIDGE_INT64;
  if (strcmp(s, "f2") == 0) return CUBRIDGE_FLOAT16;
  return -1;
}

static int cb_int64_tuple(PyObject* t, const char* what, const cb_arg* arg, int64_t* out,
                          int* len) {
  if (!PyTuple_Check(t) || PyTuple_Size(t) > CB_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ '%s' is not a tuple of ints",
                 arg->name, what);
    return -1;
  }
  *len = (int)PyTuple_Size(t);
  for (int i = 0; i < *len; i++) {
    out[i] = PyLong_AsLongLong(PyTuple_GetItem(t, i));
    if (out[i] == -1 && PyErr_Occurred()) return -1;
  }
  return 0;
}

static PyObject* cb_cai_item(PyObject* d, const char* key) {
  PyObject* k = PyUnicode_FromString(key);
  if (k == NULL) return NULL;
  PyObject* v = PyDict_GetItemWithError(d, k); /* borrowed */
  Py_DECREF(k);
  return v;
}

/* Returned by cb_arg_from_cai (no exception set) for a typestr that only
 * DLPack can describe. */
#define CB_TRY_DLPACK (-2)

static int cb_arg_from_cai(PyObject* obj, int writable, uintptr_t stream, cb_arg* arg) {
  PyObject* d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
  if (d == NULL) return -1;
  arg->keep = d;
  if (!PyDict_Check(d)) {
    PyErr_Format(PyExc_TypeError, "%s.__cuda_array_interface__ is not a dict", arg->name);
    return -1;
  }
  PyObject* shape = cb_cai_item(d, "shape");
  PyObject* typestr = cb_cai_item(d, "typestr");
  PyObject* data = cb_cai_item(d, "data");
  if (shape == NULL || typestr == NULL || data == NULL || !PyUnicode_Check(typestr) ||
      !PyTuple_Check(data) || PyTuple_Size(data) != 2) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError,
                   "%s: __cuda_array_interface__ lacks a valid shape, typestr or data", arg->name);
    return -1;
  }
  PyObject* mask = cb_cai_item(d, "mask");
  if (mask != NULL && mask != Py_None) {
    PyErr_Format(PyExc_ValueError, "%s: masked CUDA arrays are not supported", arg->name);
    return -1;
  }
  int64_t dims[CB_MAX_NDIM];
  int ndim;
  if (cb_int64_tuple(shape, "shape", arg, dims, &ndim) < 0) return -1;
  if (cb_set_shape(arg, ndim, dims, 0) < 0) return -1;
  const char* ts = PyUnicode_AsUTF8AndSize(typestr, NULL);
  if (ts == NULL) return -1;
  arg->dtype = cb_dtype_from_typestr(ts);
  if (arg->dtype < 0) {
    /* torch exports bfloat16 as typestr "<V2" (NumPy has no bfloat16): let the
     * caller read the array through DLPack, which names the type. */
    if (ts[0] != '\0' && ts[1] == 'V' && PyObject_HasAttrString(obj, "__dlpack__")) {
      return CB_TRY_DLPACK;
    }
    char what[48];
    PyOS_snprintf(what, sizeof what, "(typestr '%.20s')", ts);
    return cb_unsupported_dtype(arg, what);
  }
  PyObject* strides = cb_cai_item(d, "strides");
  if (strides != NULL && strides != Py_None) {
    int64_t st[CB_MAX_NDIM];
    int n;
    if (cb_int64_tuple(strides, "strides", arg, st, &n) < 0) return -1;
    if (n != ndim) {
      PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ strides do not match shape",
                   arg->name);
      return -1;
    }
    if (cb_check_contiguous(arg, st, cb_dtype_size(arg->dtype)) < 0) return -1;
  }
  arg->ptr = PyLong_AsVoidPtr(PyTuple_GetItem(data, 0));
  if (arg->ptr == NULL && PyErr_Occurred()) return -1;
  arg->readonly = PyObject_IsTrue(PyTuple_GetItem(data, 1));
  if (arg->readonly < 0) return -1;
  if (writable && arg->readonly) {
    PyErr_Format(PyExc_ValueError, "%s is read-only; pass a writable array", arg->name);
    return -1;
  }
  arg->home = CB_HOME_DEVICE;
  arg->device = 0;
  if (arg->ptr != NULL) {
    int kind, device;
    if (cubridge_pointer_kind(arg->ptr, &kind, &device) == CUBRIDGE_OK) {
      arg->home = kind == CUBRIDGE_MEMORY_MANAGED  ? CB_HOME_MANAGED
                  : kind == CUBRIDGE_MEMORY_DEVICE ? CB_HOME_DEVICE
                  : kind == CUBRIDGE_MEMORY_PINNED ? CB_HOME_PINNED
                                                   : CB_HOME_HOST;
      arg->device = device;
    }
  }
  /* v3: the producer's stream must be done with the data before we use it. */
  PyObject* s = cb_cai_item(d, "stream");
  if (s != NULL && s != Py_None) {
    uintptr_t h;
    if (cb_handle_from_int(s, &h) < 0) return -1;
    if (h == 0) {
      PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ stream 0 is disallowed",
                   arg->name);
      return -1;
    }
    if (cb_norm_stream(h) != cb_norm_stream(stream) && cb_sync_handle(h == 1 ? 0 : h) < 0)
      return -1;
  }
  return PyErr_Occurred() ? -1 : 0;
}

/* ---- cubridge.Array --------------------------------------------------- */

static int cb_arg_from_array(PyObject* obj, cb_arg* arg) {
  cb_array* a = (cb_array*)obj;
  Py_INCREF(obj);
  arg->array = obj;
  arg->ptr = a->ptr;
  arg->dtype = a->dtype;
  int64_t dims[CB_MAX_NDIM];
  for (int i = 0; i < a->ndim; i++) dims[i] = (int64_t)a->shape[i];
  if (cb_set_shape(arg, a->ndim, dims, 0) < 0) return -1;
  arg->home = a->kind == CUBRIDGE_MEMORY_DEVICE    ? CB_HOME_DEVICE
              : a->kind == CUBRIDGE_MEMORY_MANAGED ? CB_HOME_MANAGED
                                                   : CB_HOME_PINNED;
  arg->device = a->device;
  return 0;
}

/* ---- entry points ----------------------------------------------------- */

/* True when obj says through __dlpack_device__ that its memory is not plain
 * CPU memory (kDLCPU = 1). Errors count as "no". */
static int cb_dlpack_on_device(PyObject* obj) {
  if (!PyObject_HasAttrString(obj, "__dlpack_device__")) return 0;
  PyObject* dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
  if (dev == NULL) {
    PyErr_Clear();
    return 0;
  }
  int on_device = 0;
  if (PyTuple_Check(dev) && PyTuple_Size(dev) == 2) {
    long type = PyLong_AsLong(PyTuple_GetItem(dev, 0));
    if (type == -1 && PyErr_Occurred()) {
      PyErr_Clear();
    } else {
      on_device = type != 1;
    }
  }
  Py_DECREF(dev);
  return on_device;
}

int cb_arg_get(PyObject* obj, const char* name, int writable, uintptr_t stream, cb_arg* arg) {
  memset(arg, 0, sizeof *arg);
  arg->name = name;
  arg->device = -1;
  int rc;
  /* Device protocols first: CuPy, torch and JAX arrays also expose a buffer
   * protocol that fails for device memory. */
  if (cb_is_array(obj)) {
    rc = cb_arg_from_array(obj, arg);
  } else if (PyObject_HasAttrString(obj, "__cuda_array_interface__") &&
             (cb_backend() == CUBRIDGE_BACKEND_CUDA || !PyObject_CheckBuffer(obj))) {
    rc = cb_arg_from_cai(obj, writable, stream, arg);
    if (rc == CB_TRY_DLPACK) {
      cb_arg_release(arg);
      memset(arg, 0, sizeof *arg);
      arg->name = name;
      arg->device = -1;
      rc = cb_dlpack_import(obj, writable, stream, arg);
    }
    /* CUDA memory (CuPy, numba) with CUBRIDGE_BACKEND=cpu: parsed (so bad
     * interfaces get their own errors), then refused: CPU threads must not
     * dereference device pointers. */
    if (rc == 0 && cb_backend() != CUBRIDGE_BACKEND_CUDA) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError,
                     "%s is CUDA device memory (__cuda_array_interface__), which the CPU "
                     "backend cannot use",
                     name);
      rc = -1;
    }
  } else if (PyObject_CheckBuffer(obj) && !cb_dlpack_on_device(obj)) {
    rc = cb_arg_from_buffer(obj, writable, arg);
  } else if (PyObject_HasAttrString(obj, "__dlpack__")) {
    rc = cb_dlpack_import(obj, writable, stream, arg);
    if (rc == 0 && arg->home == CB_HOME_DEVICE && cb_backend() != CUBRIDGE_BACKEND_CUDA) {
      PyErr_Format(PyExc_ValueError,
                   "%s is CUDA device memory (DLPack kDLCUDA), which the CPU backend cannot use",
                   name);
      rc = -1;
    }
  } else {
    cb_type_error(name,
                  "an array (buffer protocol, __dlpack__ or __cuda_array_interface__, e.g. a "
                  "NumPy array or cubridge.Array)",
                  obj);
    rc = -1;
  }
  if (rc < 0) cb_arg_release(arg);
  return rc;
}

void cb_arg_release(cb_arg* arg) {
  /* Release callbacks (DLPack deleters, buffer release) may run Python code:
   * never with an exception pending. */
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (arg->has_view) {
    PyBuffer_Release(&arg->view);
    arg->has_view = 0;
  }
  if (arg->dl != NULL) {
    cb_dlpack_release(arg->dl, arg->dl_versioned);
    arg->dl = NULL;
  }
  Py_CLEAR(arg->array);
  Py_CLEAR(arg->keep);
  if (type != NULL) {
    PyErr_Restore(type, value, tb);
  } else if (PyErr_Occurred()) {
    PyErr_WriteUnraisable(NULL); /* a deleter raised: report, do not fail the op */
  }
}

static PyObject* cb_shape_str(const cb_arg* a) {
  PyObject* t = PyTuple_New(a->ndim);
  if (t == NULL) return NULL;
  for (int i = 0; i < a->ndim; i++) PyTuple_SetItem(t, i, PyLong_FromLongLong(a->shape[i]));
  PyObject* s = PyObject_Repr(t);
  Py_DECREF(t);
  return s;
}

int cb_arg_same_dtype(const cb_arg* a, const cb_arg* b) {
  if (a->dtype == b->dtype) return 0;
  PyErr_Format(PyExc_TypeError,
               "%s has dtype %s but %s has dtype %s; they must match (convert with "
               "cubridge.astype)",
               b->name, cb_dtype_name(b->dtype), a->name, cb_dtype_name(a->dtype));
  return -1;
}

int cb_arg_same_shape(const cb_arg* a, const cb_arg* b) {
  int same = a->ndim == b->ndim;
  for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
  if (same) return 0;
  if (a->ndim == 1 && b->ndim == 1) {
    PyErr_Format(PyExc_ValueError, "%s has length %lld but %s has length %lld", b->name,
                 (long long)b->shape[0], a->name, (long long)a->shape[0]);
    return -1;
  }
  PyObject* sa = cb_shape_str(a);
  PyObject* sb = cb_shape_str(b);
  if (sa && sb)
    PyErr_Format(PyExc_ValueError, "%s has shape %U but %s has shape %U (no broadcasting)", b->name,
                 sb, a->name, sa);
  Py_XDECREF(sa);
  Py_XDECREF(sb);
  return -1;
}

int cb_arg_check_overlap(const cb_arg* a, const cb_arg* b) {
  size_t na = a->n * cb_dtype_size(a->dtype), nb = b->n * cb_dtype_size(b->dtype);
  uintptr_t pa = (uintptr_t)a->ptr, pb = (uintptr_t)b->ptr;
  if (na == 0 || nb == 0 || pa == pb) return 0;
  if (pa < pb + nb && pb < pa + na) {
    PyErr_Format(PyExc_ValueError, "%s partially overlaps %s in memory", b->name, a->name);
    return -1;
  }
  return 0;
}

int cb_arg_order(cb_arg* arg, uintptr_t stream) {
  if (arg->array == NULL) return 0;
  return cb_array_settle((cb_array*)arg->array, 0, stream);
}

void cb_arg_written(cb_arg* arg, uintptr_t stream) {
  if (arg->array == NULL || cb_backend() != CUBRIDGE_BACKEND_CUDA) {
    PyErr_Clear();
    return;
  }
  cb_array* a = (cb_array*)arg->array;
  a->pending = 1;
  a->pending_stream = stream;
}

/* ---- results ---------------------------------------------------------- */

static PyObject* cb_numpy_empty(int ndim, const int64_t* shape, int dtype) {
  if (dtype == CUBRIDGE_BFLOAT16) {
    PyErr_SetString(PyExc_TypeError,
                    "NumPy has no bfloat16: pass out= (e.g. a cubridge.Array) for a bfloat16 "
                    "result of host inputs");
    return NULL;
  }
  PyObject* np = PyImport_ImportModule("numpy");
  if (np == NULL) return NULL;
  PyObject* dims = PyTuple_New(ndim);
  PyObject* result = NULL;
  if (dims != NULL) {
    for (int i = 0; i < ndim; i++) PyTuple_SetItem(dims, i, PyLong_FromLongLong(shape[i]));
    result = PyObject_CallMethod(np, "empty", "Os", dims, cb_dtype_name(dtype));
    Py_DECREF(dims);
  }
  Py_DECREF(np);
  return result;
}

PyObject* cb_new_result(const cb_arg* proto, int ndim, const int64_t* shape, int dtype) {
  int kind;
  if (proto->array != NULL) {
    kind = ((cb_array*)proto->array)->kind;
  } else if (proto->home == CB_HOME_DEVICE) {
    kind = CUBRIDGE_MEMORY_DEVICE;
  } else if (proto->home == CB_HOME_MANAGED) {
    kind = CUBRIDGE_MEMORY_MANAGED;
  } else {
    return cb_numpy_empty(ndim, shape, dtype);
  }
  return (PyObject*)cb_array_new(ndim, shape, dtype, kind);
}
