/* cubridge.Array: an n-dimensional, C-contiguous array in cubridge memory
 * (device, managed or pinned), exported zero-copy through DLPack,
 * __cuda_array_interface__, __array_interface__ and the buffer protocol. */
#include "array_type.h"

#include "array.h"
#include "backend.h"
#include "dlpack_export.h"
#include "dtypes.h"
#include "errors.h"
#include "module.h"
#include "results.h"

#define CB_STATE_OR_NULL(self)                                   \
  cb_module* st = cb_module_of_type(Py_TYPE((PyObject*)(self))); \
  if (st == NULL) return NULL

static void cb_array_dealloc(cb_array* self) {
  PyTypeObject* tp = Py_TYPE((PyObject*)self);
  /* Its memory is reused once every use recorded so far is done (runtime.h):
   * nothing waits here. Nothing can be raised from a destructor. */
  (void)cubridge_array_destroy(self->rt);
  PyMem_Free(self->shape);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(self);
  Py_DECREF(tp);
}

/* ---- construction ----------------------------------------------------- */

/* One dimension: an int (or anything with __index__, NumPy's integers). */
static int cb_parse_dim(PyObject* obj, int64_t* dim) {
  PyObject* index = PyNumber_Index(obj);
  if (index == NULL) {
    PyErr_SetString(PyExc_TypeError, "shape must contain only ints");
    return -1;
  }
  *dim = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (*dim == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    PyErr_SetString(PyExc_ValueError, "shape: a dimension is out of int64's range");
    return -1;
  }
  return 0;
}

static int cb_parse_shape(PyObject* obj, int* ndim, int64_t* dims) {
  if (PyIndex_Check(obj)) {
    *ndim = 1;
    return cb_parse_dim(obj, &dims[0]);
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
    int rc = cb_parse_dim(item, &dims[i]);
    Py_DECREF(item);
    if (rc < 0) return -1;
  }
  return 0;
}

static PyObject* cb_array_tp_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"shape", "dtype", "memory", "device", NULL};
  PyObject *shape, *dtype_obj = NULL, *memory_obj = NULL, *device_obj = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOO:Array", kwlist, &shape, &dtype_obj,
                                   &memory_obj, &device_obj))
    return NULL;
  cb_module* st = cb_module_of_type(type);
  if (st == NULL) return NULL;
  int ndim;
  int64_t dims[CB_MAX_NDIM];
  if (cb_parse_shape(shape, &ndim, dims) < 0) return NULL;
  int dtype = dtype_obj ? cb_dtype_from_object(st, dtype_obj, "dtype") : CUBRIDGE_FLOAT32;
  if (dtype < 0) return NULL;
  int kind = memory_obj ? cb_parse_memory(st, memory_obj) : CUBRIDGE_MEMORY_DEVICE;
  if (kind < 0) return NULL;
  int device = cb_parse_device(st, device_obj);
  if (device < -1) return NULL;
  return (PyObject*)cb_array_new(st, ndim, dims, dtype, kind, device, NULL);
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
  CB_STATE_OR_NULL(s);
  return Py_NewRef(cb_dtype(st, s->dtype)->name_obj);
}
static PyObject* get_ndim(cb_array* s, void* c) { return PyLong_FromLong(s->ndim); }
static PyObject* get_size(cb_array* s, void* c) { return PyLong_FromSize_t(s->n); }
static PyObject* get_nbytes(cb_array* s, void* c) { return PyLong_FromSize_t(s->nbytes); }
static PyObject* get_itemsize(cb_array* s, void* c) {
  CB_STATE_OR_NULL(s);
  return PyLong_FromSize_t(cb_dtype(st, s->dtype)->size);
}
static PyObject* get_memory(cb_array* s, void* c) {
  CB_STATE_OR_NULL(s);
  return Py_NewRef(st->arrays.memory_names[s->kind]);
}
static PyObject* get_ptr(cb_array* s, void* c) {
  CB_STATE_OR_NULL(s);
  /* Whatever uses the address, the runtime does not see: never reused
   * behind its event alone. */
  if (cb_check(st, cubridge_array_export(s->rt, NULL)) < 0) return NULL;
  return PyLong_FromVoidPtr(s->ptr);
}
static PyObject* get_device(cb_array* s, void* c) { return PyLong_FromLong(s->device); }

/* Shared by __array_interface__ and __cuda_array_interface__. */
static PyObject* cb_interface(cb_module* st, cb_array* s, PyObject* stream) {
  const char* ts = cb_dtype(st, s->dtype)->typestr;
  if (ts[0] == '\0') {
    PyErr_Format(PyExc_TypeError, "%s has no array-interface typestr; export it with __dlpack__",
                 cb_dtype(st, s->dtype)->name);
    return NULL;
  }
  PyObject* shape = get_shape(s, NULL);
  if (shape == NULL) return NULL;
  PyObject* d = Py_BuildValue("{s:N,s:s,s:[(s,s)],s:(N,O),s:O,s:i}", "shape", shape, "typestr", ts,
                              "descr", "", ts, "data", PyLong_FromVoidPtr(s->ptr), Py_False,
                              "strides", Py_None, "version", 3);
  if (d != NULL && stream != NULL && PyDict_SetItem(d, st->names.stream, stream) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

static PyObject* get_cai(cb_array* s, void* c) {
  CB_STATE_OR_NULL(s);
  int backend = cb_backend_kind(st);
  if (backend < 0) return NULL;
  if (backend != CUBRIDGE_BACKEND_CUDA || s->kind == CUBRIDGE_MEMORY_PINNED) {
    PyErr_SetString(PyExc_AttributeError,
                    backend != CUBRIDGE_BACKEND_CUDA
                        ? "__cuda_array_interface__: the CPU backend keeps arrays in host memory"
                        : "__cuda_array_interface__: pinned memory is host memory");
    return NULL;
  }
  /* A pending write: the consumer orders after the default stream (v3: stream
   * 1), which the runtime made wait for a write on another stream (whose
   * handle may not outlive the export). Nobody waits on the host. */
  int pending = 0;
  if (cb_check(st, cubridge_array_export(s->rt, &pending)) < 0) return NULL;
  PyObject* one = pending ? PyLong_FromLong(1) : NULL;
  if (pending && one == NULL) return NULL;
  PyObject* d = cb_interface(st, s, pending ? one : Py_None);
  Py_XDECREF(one);
  return d;
}

static PyObject* get_ai(cb_array* s, void* c) {
  CB_STATE_OR_NULL(s);
  if (!cb_array_host_accessible(st, s)) {
    PyErr_SetString(PyExc_AttributeError,
                    "__array_interface__: device memory is not host-accessible (use to_numpy())");
    return NULL;
  }
  if (cb_array_host_wait(st, s, CUBRIDGE_ACCESS_READ) < 0) return NULL;
  return cb_interface(st, s, NULL);
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
    {"device", (getter)get_device, NULL, "Index of the device (0 on the CPU backend).", NULL},
    {"ptr", (getter)get_ptr, NULL, "Address of the first element (int).", NULL},
    {"__cuda_array_interface__", (getter)get_cai, NULL, "CUDA array interface v3.", NULL},
    {"__array_interface__", (getter)get_ai, NULL, "NumPy array interface v3.", NULL},
    {NULL}};

/* ---- methods ---------------------------------------------------------- */

static PyObject* cb_array_to_numpy(cb_array* self, PyObject* unused) {
  (void)unused;
  CB_STATE_OR_NULL(self);
  if (cb_dtype(st, self->dtype)->format[0] == '\0') {
    PyErr_Format(PyExc_TypeError, "to_numpy(): NumPy has no %s; astype() it first",
                 cb_dtype(st, self->dtype)->name);
    return NULL;
  }
  PyObject* out = cb_numpy_new(st, self->ndim, self->shape, self->dtype);
  if (out == NULL) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(out, &view, PyBUF_WRITABLE) < 0) {
    Py_DECREF(out);
    return NULL;
  }
  int rc = cb_array_host_wait(st, self, CUBRIDGE_ACCESS_READ);
  if (rc == 0) {
    cubridge_status status;
    void *dst = view.buf, *src = self->ptr;
    size_t bytes = self->nbytes;
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_memcpy(dst, src, bytes, NULL);
    Py_END_ALLOW_THREADS;
    if (status != CUBRIDGE_OK) {
      cb_raise_status(st, status);
      rc = -1;
    }
  }
  PyBuffer_Release(&view);
  if (rc < 0) Py_CLEAR(out);
  return out;
}

static PyObject* cb_array_copy_method(cb_array* self, PyObject* unused) {
  (void)unused;
  CB_STATE_OR_NULL(self);
  return (PyObject*)cb_array_copy(st, self, self->kind);
}

static PyObject* cb_array_array(cb_array* self, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"dtype", "copy", NULL};
  PyObject *dtype = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:__array__", kwlist, &dtype, &copy)) return NULL;
  CB_STATE_OR_NULL(self);
  PyObject* arr;
  int has_format = cb_dtype(st, self->dtype)->format[0] != '\0';
  if (cb_array_host_accessible(st, self) && copy != Py_True && has_format) {
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
  /* astype(dtype, copy=False): the array itself when it has that dtype already. */
  PyObject* astype = PyObject_GetAttrString(arr, "astype");
  PyObject* pos = astype ? PyTuple_Pack(1, dtype) : NULL;
  PyObject* kw = pos ? Py_BuildValue("{sO}", "copy", Py_False) : NULL;
  PyObject* cast = kw ? PyObject_Call(astype, pos, kw) : NULL;
  Py_XDECREF(kw);
  Py_XDECREF(pos);
  Py_XDECREF(astype);
  int copied = cast != NULL && cast != arr;
  Py_DECREF(arr);
  if (copied && copy == Py_False) {
    Py_DECREF(cast);
    PyErr_Format(PyExc_ValueError,
                 "cubridge.Array of dtype %s cannot become a NumPy array of dtype %R without a "
                 "copy (copy=False)",
                 cb_dtype(st, self->dtype)->name, dtype);
    return NULL;
  }
  return cast;
}

static PyObject* cb_array_repr(cb_array* self) {
  CB_STATE_OR_NULL(self);
  PyObject* shape = get_shape(self, NULL);
  PyObject* r = NULL;
  if (shape)
    r = PyUnicode_FromFormat("cubridge.Array(shape=%R, dtype='%s', memory='%U', device=%d)", shape,
                             cb_dtype(st, self->dtype)->name, st->arrays.memory_names[self->kind],
                             self->device);
  Py_XDECREF(shape);
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

static int cb_array_getbuffer(cb_array* self, Py_buffer* view, int flags) {
  cb_module* st = cb_module_of_type(Py_TYPE((PyObject*)self));
  if (st == NULL) return -1;
  if (!cb_array_host_accessible(st, self)) {
    PyErr_SetString(PyExc_BufferError,
                    "cubridge.Array in device memory has no buffer; use to_numpy() or DLPack");
    return -1;
  }
  const cb_dtype_info* d = cb_dtype(st, self->dtype);
  if (d->format[0] == '\0') {
    PyErr_Format(PyExc_BufferError, "%s has no buffer-protocol format", d->name);
    return -1;
  }
  /* The host may write through the buffer: after every use, not only the last write. */
  if (cb_array_host_wait(st, self, CUBRIDGE_ACCESS_WRITE) < 0) return -1;
  static char empty;
  view->buf = self->ptr ? self->ptr : &empty;
  view->obj = Py_NewRef((PyObject*)self);
  view->len = (Py_ssize_t)self->nbytes;
  view->readonly = 0;
  view->itemsize = (Py_ssize_t)d->size;
  view->format = (flags & PyBUF_FORMAT) ? (char*)d->format : NULL;
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
     "Array(shape, dtype='float32', memory='device', device=None)\n--\n\n"
     "An uninitialised C-contiguous array in cubridge memory ('device', 'managed' or "
     "'pinned') on `device` (None: the current one), from the library's caching pool. "
     "Use cubridge.empty/zeros/full/asarray to make one."},
    {0, NULL}};

static PyType_Spec cb_array_spec = {"cubridge.Array", sizeof(cb_array), 0, Py_TPFLAGS_DEFAULT,
                                    cb_array_slots};

int cb_arrays_init(PyObject* module, cb_module* m) {
  for (int k = 0; k < CB_NUM_MEMORY_KINDS; k++) {
    const char* name = cubridge_memory_name(k);
    if (name == NULL) {
      PyErr_Format(PyExc_ImportError, "cubridge: the library has no name for memory kind %d", k);
      return -1;
    }
    if ((m->arrays.memory_names[k] = PyUnicode_InternFromString(name)) == NULL) return -1;
  }
  m->arrays.type = (PyTypeObject*)PyType_FromModuleAndSpec(module, &cb_array_spec, NULL);
  if (m->arrays.type == NULL) return -1;
  return PyModule_AddObjectRef(module, "Array", (PyObject*)m->arrays.type);
}

int cb_arrays_traverse(cb_module* m, visitproc visit, void* arg) {
  Py_VISIT((PyObject*)m->arrays.type);
  CB_VISIT_ALL(m->arrays.memory_names, CB_NUM_MEMORY_KINDS);
  return 0;
}

void cb_arrays_clear(cb_module* m) {
  Py_CLEAR(m->arrays.type);
  CB_CLEAR_ALL(m->arrays.memory_names, CB_NUM_MEMORY_KINDS);
}
