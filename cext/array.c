/* cubridge.Array: an n-dimensional, C-contiguous array in memory from
 * cubridge_malloc (device, managed or pinned), exported zero-copy through
 * DLPack, __cuda_array_interface__, __array_interface__ and the buffer protocol. */
#include <string.h>

#include "native.h"

PyTypeObject* cb_array_type;

static const char* const cb_kind_names[] = {"host", "device", "managed", "pinned"};

int cb_is_array(PyObject* obj) { return PyObject_TypeCheck(obj, cb_array_type); }

int cb_array_host_accessible(const cb_array* self) {
  int backend = cb_backend();
  if (backend < 0) PyErr_Clear();
  return backend != CUBRIDGE_BACKEND_CUDA || self->kind != CUBRIDGE_MEMORY_DEVICE;
}

int cb_array_settle(cb_array* self, int for_host, uintptr_t stream) {
  if (!self->pending) return 0;
  if (!for_host && cb_norm_stream(self->pending_stream) == cb_norm_stream(stream)) return 0;
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_device_synchronize();
  Py_END_ALLOW_THREADS if (st != CUBRIDGE_OK) {
    cb_raise_status(st);
    return -1;
  }
  self->pending = 0;
  return 0;
}

cb_array* cb_array_new(int ndim, const int64_t* shape, int dtype, int kind) {
  size_t itemsize = cb_dtype_size(dtype);
  if (itemsize == 0) {
    PyErr_Format(PyExc_TypeError, "dtype: unknown dtype code %d", dtype);
    return NULL;
  }
  if (kind != CUBRIDGE_MEMORY_DEVICE && kind != CUBRIDGE_MEMORY_MANAGED &&
      kind != CUBRIDGE_MEMORY_PINNED) {
    PyErr_SetString(PyExc_ValueError, "memory must be 'device', 'managed' or 'pinned'");
    return NULL;
  }
  if (ndim < 0 || ndim > CB_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "shape: at most %d dimensions", CB_MAX_NDIM);
    return NULL;
  }
  size_t n = 1;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0) {
      PyErr_SetString(PyExc_ValueError, "shape: dimensions must be >= 0");
      return NULL;
    }
    if (shape[i] != 0 && n > (SIZE_MAX / 2 / itemsize) / (size_t)shape[i]) {
      PyErr_SetString(PyExc_ValueError, "shape: the array would be too large");
      return NULL;
    }
    n *= (size_t)shape[i];
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(cb_array_type, Py_tp_alloc);
  cb_array* self = (cb_array*)alloc(cb_array_type, 0);
  if (self == NULL) return NULL;
  self->ptr = NULL;
  self->kind = kind;
  self->dtype = dtype;
  self->ndim = ndim;
  self->device = 0;
  self->n = n;
  self->nbytes = n * itemsize;
  self->pending = 0;
  self->pending_stream = 0;
  self->shape = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)(ndim ? ndim : 1));
  if (self->shape == NULL) {
    Py_DECREF((PyObject*)self);
    return (cb_array*)PyErr_NoMemory();
  }
  self->strides = self->shape + ndim;
  Py_ssize_t stride = (Py_ssize_t)itemsize;
  for (int i = ndim - 1; i >= 0; i--) {
    self->shape[i] = (Py_ssize_t)shape[i];
    self->strides[i] = stride;
    stride *= (Py_ssize_t)shape[i];
  }
  cubridge_status st;
  void* ptr = NULL;
  size_t nbytes = self->nbytes;
  Py_BEGIN_ALLOW_THREADS st = cubridge_malloc(kind, nbytes, &ptr);
  Py_END_ALLOW_THREADS if (st != CUBRIDGE_OK) {
    Py_DECREF((PyObject*)self);
    return (cb_array*)cb_raise_status(st);
  }
  self->ptr = ptr;
  int k, device;
  if (ptr != NULL && cubridge_pointer_kind(ptr, &k, &device) == CUBRIDGE_OK && device >= 0)
    self->device = device;
  return self;
}

/* A copy on the default stream. */
static int cb_memcpy(void* dst, const void* src, size_t bytes) {
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_memcpy(dst, src, bytes, NULL);
  Py_END_ALLOW_THREADS if (st != CUBRIDGE_OK) {
    cb_raise_status(st);
    return -1;
  }
  return 0;
}

cb_array* cb_array_copy(cb_array* self, int kind) {
  int64_t dims[CB_MAX_NDIM];
  for (int i = 0; i < self->ndim; i++) dims[i] = (int64_t)self->shape[i];
  cb_array* c = cb_array_new(self->ndim, dims, self->dtype, kind);
  if (c == NULL) return NULL;
  if (cb_array_settle(self, 0, 0) < 0 || cb_memcpy(c->ptr, self->ptr, self->nbytes) < 0) {
    Py_DECREF((PyObject*)c);
    return NULL;
  }
  /* A copy on the default stream may still be in flight. */
  c->pending = cb_backend() == CUBRIDGE_BACKEND_CUDA;
  PyErr_Clear();
  c->pending_stream = 0;
  return c;
}

static void cb_array_dealloc(cb_array* self) {
  PyTypeObject* tp = Py_TYPE((PyObject*)self);
  if (self->ptr != NULL) {
    /* Pending work on any stream must finish before the memory goes back. */
    if (self->pending) cubridge_device_synchronize();
    if (cubridge_free(self->kind, self->ptr) != CUBRIDGE_OK) {
      /* Nothing sensible to raise from a destructor; the message is lost. */
    }
  }
  PyMem_Free(self->shape);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(self);
  Py_DECREF(tp);
}

/* ---- construction ----------------------------------------------------- */

static int cb_parse_shape(PyObject* obj, int* ndim, int64_t* dims) {
  if (PyLong_Check(obj)) {
    *ndim = 1;
    dims[0] = PyLong_AsLongLong(obj);
    return dims[0] == -1 && PyErr_Occurred() ? -1 : 0;
  }
  if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
    cb_type_error("shape", "an int or a tuple of ints", obj);
    return -1;
  }
  Py_ssize_t len = PySequence_Size(obj);
  if (len < 0) return -1;
  if (len > CB_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "shape: at most %d dimensions", CB_MAX_NDIM);
    return -1;
  }
  *ndim = (int)len;
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject* item = PySequence_GetItem(obj, i);
    if (item == NULL) return -1;
    PyObject* index = PyNumber_Index(item);
    Py_DECREF(item);
    if (index == NULL) {
      PyErr_SetString(PyExc_TypeError, "shape must contain only ints");
      return -1;
    }
    dims[i] = PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (dims[i] == -1 && PyErr_Occurred()) return -1;
  }
  return 0;
}

int cb_parse_memory(PyObject* obj) {
  if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8AndSize(obj, NULL);
    if (s == NULL) return -1;
    for (int k = CUBRIDGE_MEMORY_DEVICE; k <= CUBRIDGE_MEMORY_PINNED; k++) {
      if (strcmp(s, cb_kind_names[k]) == 0) return k;
    }
  }
  PyErr_Format(PyExc_ValueError, "memory must be 'device', 'managed' or 'pinned', got %R", obj);
  return -1;
}

static PyObject* cb_array_tp_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  (void)type;
  static char* kwlist[] = {"shape", "dtype", "memory", NULL};
  PyObject *shape, *dtype_obj = NULL, *memory_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO:Array", kwlist, &shape, &dtype_obj,
                                   &memory_obj))
    return NULL;
  int ndim;
  int64_t dims[CB_MAX_NDIM];
  if (cb_parse_shape(shape, &ndim, dims) < 0) return NULL;
  int dtype = dtype_obj ? cb_dtype_from_object(dtype_obj, "dtype") : CUBRIDGE_FLOAT32;
  if (dtype < 0) return NULL;
  int kind = memory_obj ? cb_parse_memory(memory_obj) : CUBRIDGE_MEMORY_DEVICE;
  if (kind < 0) return NULL;
  return (PyObject*)cb_array_new(ndim, dims, dtype, kind);
}

/* ---- attributes ------------------------------------------------------- */

static PyObject* cb_ssize_tuple(const Py_ssize_t* v, int n) {
  PyObject* t = PyTuple_New(n);
  if (t == NULL) return NULL;
  for (int i = 0; i < n; i++) {
    PyObject* x = PyLong_FromSsize_t(v[i]);
    if (x == NULL) {
      Py_DECREF(t);
      return NULL;
    }
    PyTuple_SetItem(t, i, x);
  }
  return t;
}

static PyObject* get_shape(cb_array* s, void* c) { return cb_ssize_tuple(s->shape, s->ndim); }
static PyObject* get_strides(cb_array* s, void* c) { return cb_ssize_tuple(s->strides, s->ndim); }
static PyObject* get_dtype(cb_array* s, void* c) {
  return PyUnicode_FromString(cb_dtype_name(s->dtype));
}
static PyObject* get_ndim(cb_array* s, void* c) { return PyLong_FromLong(s->ndim); }
static PyObject* get_size(cb_array* s, void* c) { return PyLong_FromSize_t(s->n); }
static PyObject* get_nbytes(cb_array* s, void* c) { return PyLong_FromSize_t(s->nbytes); }
static PyObject* get_itemsize(cb_array* s, void* c) {
  return PyLong_FromSize_t(cb_dtype_size(s->dtype));
}
static PyObject* get_memory(cb_array* s, void* c) {
  return PyUnicode_FromString(cb_kind_names[s->kind]);
}
static PyObject* get_ptr(cb_array* s, void* c) { return PyLong_FromVoidPtr(s->ptr); }
static PyObject* get_device(cb_array* s, void* c) {
  int backend = cb_backend();
  if (backend < 0) return NULL;
  if (backend != CUBRIDGE_BACKEND_CUDA) return PyUnicode_FromString("cpu");
  if (s->kind == CUBRIDGE_MEMORY_PINNED) return PyUnicode_FromString("cpu");
  return PyUnicode_FromFormat("cuda:%d", s->device);
}

static const char* const cb_typestr[CB_NUM_DTYPES] = {"<f4", "<f8", "<i4", "<i8", "<f2", NULL};

/* Shared by __array_interface__ and __cuda_array_interface__. */
static PyObject* cb_interface(cb_array* s, PyObject* stream) {
  const char* ts = cb_typestr[s->dtype];
  if (ts == NULL) {
    PyErr_SetString(PyExc_TypeError,
                    "bfloat16 has no array-interface typestr; export it with __dlpack__");
    return NULL;
  }
  PyObject* shape = get_shape(s, NULL);
  if (shape == NULL) return NULL;
  PyObject* d = Py_BuildValue("{s:N,s:s,s:[(s,s)],s:(N,O),s:O,s:i}", "shape", shape, "typestr", ts,
                              "descr", "", ts, "data", PyLong_FromVoidPtr(s->ptr), Py_False,
                              "strides", Py_None, "version", 3);
  if (d != NULL && stream != NULL && PyDict_SetItemString(d, "stream", stream) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

static PyObject* get_cai(cb_array* s, void* c) {
  int backend = cb_backend();
  if (backend < 0) return NULL;
  if (backend != CUBRIDGE_BACKEND_CUDA || s->kind == CUBRIDGE_MEMORY_PINNED) {
    PyErr_SetString(PyExc_AttributeError,
                    backend != CUBRIDGE_BACKEND_CUDA
                        ? "__cuda_array_interface__: the CPU backend keeps arrays in host memory"
                        : "__cuda_array_interface__: pinned memory is host memory");
    return NULL;
  }
  /* Work pending on the default stream: the consumer orders after it (v3);
   * on another stream: finish it now rather than hand out a stream handle
   * that may not outlive the export. */
  PyObject* stream = Py_None;
  if (s->pending && s->pending_stream != 0 && cb_array_settle(s, 1, 0) < 0) return NULL;
  PyObject* one = NULL;
  if (s->pending) stream = one = PyLong_FromLong(1);
  PyObject* d = cb_interface(s, stream);
  Py_XDECREF(one);
  return d;
}

static PyObject* get_ai(cb_array* s, void* c) {
  if (!cb_array_host_accessible(s)) {
    PyErr_SetString(PyExc_AttributeError,
                    "__array_interface__: device memory is not host-accessible (use to_numpy())");
    return NULL;
  }
  if (cb_array_settle(s, 1, 0) < 0) return NULL;
  return cb_interface(s, NULL);
}

static PyGetSetDef cb_array_getset[] = {
    {"shape", (getter)get_shape, NULL, "Tuple of dimensions.", NULL},
    {"dtype", (getter)get_dtype, NULL, "Element type name, e.g. 'float32'.", NULL},
    {"ndim", (getter)get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", (getter)get_size, NULL, "Number of elements.", NULL},
    {"itemsize", (getter)get_itemsize, NULL, "Bytes per element.", NULL},
    {"nbytes", (getter)get_nbytes, NULL, "Bytes in all.", NULL},
    {"strides", (getter)get_strides, NULL, "Byte strides (always C-contiguous).", NULL},
    {"memory", (getter)get_memory, NULL, "'device', 'managed' or 'pinned'.", NULL},
    {"device", (getter)get_device, NULL, "'cuda:N', or 'cpu' (CPU backend, pinned).", NULL},
    {"ptr", (getter)get_ptr, NULL, "Address of the first element (int).", NULL},
    {"__cuda_array_interface__", (getter)get_cai, NULL, "CUDA array interface v3.", NULL},
    {"__array_interface__", (getter)get_ai, NULL, "NumPy array interface v3.", NULL},
    {NULL}};

/* ---- methods ---------------------------------------------------------- */

static PyObject* cb_array_to_numpy(cb_array* self, PyObject* unused) {
  (void)unused;
  if (self->dtype == CUBRIDGE_BFLOAT16) {
    PyErr_SetString(PyExc_TypeError, "to_numpy(): NumPy has no bfloat16; astype() it first");
    return NULL;
  }
  PyObject* np = PyImport_ImportModule("numpy");
  if (np == NULL) return NULL;
  PyObject* shape = get_shape(self, NULL);
  PyObject* out =
      shape ? PyObject_CallMethod(np, "empty", "Os", shape, cb_dtype_name(self->dtype)) : NULL;
  Py_XDECREF(shape);
  Py_DECREF(np);
  if (out == NULL) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(out, &view, PyBUF_WRITABLE) < 0) {
    Py_DECREF(out);
    return NULL;
  }
  int rc = cb_array_settle(self, 1, 0);
  if (rc == 0) rc = cb_memcpy(view.buf, self->ptr, self->nbytes);
  PyBuffer_Release(&view);
  if (rc < 0) Py_CLEAR(out);
  return out;
}

static PyObject* cb_array_copy_method(cb_array* self, PyObject* unused) {
  (void)unused;
  return (PyObject*)cb_array_copy(self, self->kind);
}

static PyObject* cb_array_array(cb_array* self, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"dtype", "copy", NULL};
  PyObject *dtype = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:__array__", kwlist, &dtype, &copy)) return NULL;
  PyObject* arr;
  if (cb_array_host_accessible(self) && copy != Py_True && self->dtype != CUBRIDGE_BFLOAT16) {
    PyObject* np = PyImport_ImportModule("numpy");
    if (np == NULL) return NULL;
    arr = PyObject_CallMethod(np, "asarray", "O", (PyObject*)self);
    Py_DECREF(np);
  } else if (copy == Py_False) {
    PyErr_SetString(PyExc_ValueError,
                    "cubridge.Array in device memory cannot become a NumPy array without a copy");
    return NULL;
  } else {
    arr = cb_array_to_numpy(self, NULL);
  }
  if (arr == NULL || dtype == Py_None) return arr;
  PyObject* cast = PyObject_CallMethod(arr, "astype", "O", dtype);
  Py_DECREF(arr);
  return cast;
}

static PyObject* cb_array_repr(cb_array* self) {
  PyObject* shape = get_shape(self, NULL);
  PyObject* device = shape ? get_device(self, NULL) : NULL;
  PyObject* r = NULL;
  if (device)
    r = PyUnicode_FromFormat("cubridge.Array(shape=%R, dtype='%s', memory='%s', device='%U')",
                             shape, cb_dtype_name(self->dtype), cb_kind_names[self->kind], device);
  Py_XDECREF(shape);
  Py_XDECREF(device);
  return r;
}

static Py_ssize_t cb_array_len(cb_array* self) {
  if (self->ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d cubridge.Array");
    return -1;
  }
  return self->shape[0];
}

/* ---- buffer protocol (host-accessible memory only) -------------------- */

static const char* const cb_formats[CB_NUM_DTYPES] = {"f", "d", "i", "q", "e", NULL};

static int cb_array_getbuffer(cb_array* self, Py_buffer* view, int flags) {
  if (!cb_array_host_accessible(self)) {
    PyErr_SetString(PyExc_BufferError,
                    "cubridge.Array in device memory has no buffer; use to_numpy() or DLPack");
    return -1;
  }
  if (cb_formats[self->dtype] == NULL) {
    PyErr_SetString(PyExc_BufferError, "bfloat16 has no buffer-protocol format");
    return -1;
  }
  if (cb_array_settle(self, 1, 0) < 0) return -1;
  static char empty;
  view->buf = self->ptr ? self->ptr : &empty;
  view->obj = (PyObject*)self;
  Py_INCREF((PyObject*)self);
  view->len = (Py_ssize_t)self->nbytes;
  view->readonly = 0;
  view->itemsize = (Py_ssize_t)cb_dtype_size(self->dtype);
  view->format = (flags & PyBUF_FORMAT) ? (char*)cb_formats[self->dtype] : NULL;
  view->ndim = self->ndim;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? self->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  return 0;
}

static PyMethodDef cb_array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))cb_dlpack_export, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Exports the array as a DLPack capsule (versioned when max_version >= (1, 0))."},
    {"__dlpack_device__", (PyCFunction)cb_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self)\n--\n\n(device_type, device_id) in DLPack terms."},
    {"to_numpy", (PyCFunction)cb_array_to_numpy, METH_NOARGS,
     "to_numpy($self)\n--\n\nA NumPy copy of the array (waits for pending work)."},
    {"copy", (PyCFunction)cb_array_copy_method, METH_NOARGS,
     "copy($self)\n--\n\nA new Array with the same memory kind and contents."},
    {"__array__", (PyCFunction)(void (*)(void))cb_array_array, METH_VARARGS | METH_KEYWORDS,
     "__array__($self, /, dtype=None, copy=None)\n--\n\nNumPy conversion (zero-copy when "
     "host-accessible)."},
    {NULL}};

static PyType_Slot cb_array_slots[] = {
    {Py_tp_new, cb_array_tp_new},
    {Py_tp_dealloc, cb_array_dealloc},
    {Py_tp_repr, cb_array_repr},
    {Py_tp_getset, cb_array_getset},
    {Py_tp_methods, cb_array_methods},
    {Py_sq_length, cb_array_len},
    {Py_bf_getbuffer, cb_array_getbuffer},
    {Py_tp_doc,
     "Array(shape, dtype='float32', memory='device')\n--\n\n"
     "An uninitialised C-contiguous array in cubridge memory ('device', 'managed' or "
     "'pinned'). Use cubridge.empty/zeros/full/asarray to make one."},
    {0, NULL}};

static PyType_Spec cb_array_spec = {"cubridge.Array", sizeof(cb_array), 0, Py_TPFLAGS_DEFAULT,
                                    cb_array_slots};

int cb_array_init_type(PyObject* module) {
  cb_array_type = (PyTypeObject*)PyType_FromSpec(&cb_array_spec);
  if (cb_array_type == NULL) return -1;
  Py_INCREF((PyObject*)cb_array_type);
  return PyModule_AddObject(module, "Array", (PyObject*)cb_array_type);
}
