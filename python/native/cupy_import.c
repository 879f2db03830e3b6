/* cupy.ndarray into the array view (cupy_import.h).
 *
 * The attributes read are the public ones CuPy's own __cuda_array_interface__
 * reads (data.ptr, data.device_id, shape, strides, dtype), and the stream is
 * the one that property names (CuPy's current stream), so what cubridge does
 * with the array is what it did through the interface. On the GPU host, three
 * CuPy arrays cost add(out=) 3.1-3.3 us over three cubridge Arrays through the
 * interface. */
#include "cupy_import.h"

#include "backend.h"
#include "dtypes.h"
#include "module.h"

/* cupy.cuda.get_current_stream, and the pointer CuPy's interface names for
 * Stream.null (its ptr 0): cupy_backends' default stream pointer, 1 (legacy)
 * or 2 (per-thread, CUPY_CUDA_PER_THREAD_DEFAULT_STREAM), fixed at import. */
static int cb_cupy_setup(cb_cupy* st) {
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
  st->current_stream = current;
  st->default_stream = (uintptr_t)def;
  return 0;
}

/* The cubridge dtype of a numpy.dtype object (-1: none, described in v; -2:
 * an error), remembered per object when cubridge has it: CuPy's dtypes are
 * NumPy's singletons. */
static int cb_cupy_dtype(cb_module* m, PyObject* dtype, cb_arg* a) {
  cb_cupy* st = &m->cupy;
  for (int i = 0; i < CB_CUPY_DTYPES; i++) {
    if (st->dtype_seen[i] == dtype) return st->dtype_code[i];
  }
  PyObject* typestr = PyObject_GetAttr(dtype, m->names.str);
  const char* ts = typestr ? PyUnicode_AsUTF8AndSize(typestr, NULL) : NULL;
  if (ts == NULL) {
    Py_XDECREF(typestr);
    return -2;
  }
  int code = cb_dtype_from_typestr(m, ts);
  if (code < 0) { /* not remembered: each error message says what it was */
    PyOS_snprintf(a->dtype_desc, sizeof a->dtype_desc, "(typestr '%.20s')", ts);
    Py_DECREF(typestr);
    return code;
  }
  Py_DECREF(typestr);
  int slot = st->dtype_next;
  st->dtype_next = (slot + 1) % CB_CUPY_DTYPES;
  PyObject* old = st->dtype_seen[slot];
  st->dtype_seen[slot] = Py_NewRef(dtype);
  Py_XDECREF(old);
  st->dtype_code[slot] = code;
  return code;
}

/* Fills `v` from the attributes: 0, -1 with an exception. */
static int cb_cupy_fill(cb_module* m, cb_arg* a, PyObject* ptr, PyObject* device, PyObject* shape,
                        PyObject* strides, PyObject* dtype) {
  cubridge_view* v = &a->v;
  v->dtype = cb_cupy_dtype(m, dtype, a);
  if (v->dtype == -2) return -1;
  int rc = cb_int64_tuple(shape, a->shape, CB_MAX_NDIM, &v->ndim);
  if (rc == CB_TUPLE_TOO_LONG) return 0; /* the check reports the dimensions */
  if (rc < 0) {
    PyErr_Format(PyExc_ValueError, "%s: CuPy gave a shape that is not a tuple of ints", v->name);
    return -1;
  }
  int n = 0;
  if (cb_int64_tuple(strides, a->strides, CB_MAX_NDIM, &n) != 0 || n != v->ndim) {
    PyErr_Format(PyExc_ValueError, "%s: CuPy gave strides that do not match its shape", v->name);
    return -1;
  }
  const cb_dtype_info* info = cb_dtype(m, v->dtype);
  cb_arg_strides_from_bytes(a, info ? info->size : 0);
  v->data = PyLong_AsVoidPtr(ptr);
  if (v->data == NULL && PyErr_Occurred()) return -1;
  v->device = (int)PyLong_AsLong(device);
  if (v->device == -1 && PyErr_Occurred()) return -1;
  /* Device memory as CuPy says, unless the runtime finds it managed (or
   * another library's pinned memory). CuPy arrays are always writable. */
  v->memory = CUBRIDGE_MEMORY_DEVICE;
  v->flags = CUBRIDGE_VIEW_ASK_MEMORY;
  v->source = "a CuPy array";
  return 0;
}

static int cb_cupy_current_stream(cb_module* m, uintptr_t* handle);

int cb_import_cupy(cb_module* m, PyObject* obj, uintptr_t consumer, cb_arg* a) {
  cb_cupy* st = &m->cupy;
  if (st->ready == 0) {
    st->ready = cb_cupy_setup(st) == 0 ? 1 : -1;
    PyErr_Clear();
  }
  if (st->ready < 0) {
    st->read = -1;
    return CB_CUPY_GENERIC;
  }
  const cb_names* names = &m->names;
  PyObject* data = PyObject_GetAttr(obj, names->data);
  PyObject* ptr = data ? PyObject_GetAttr(data, names->ptr) : NULL;
  PyObject* device = ptr ? PyObject_GetAttr(data, names->device_id) : NULL;
  PyObject* shape = device ? PyObject_GetAttr(obj, names->shape) : NULL;
  PyObject* strides = shape ? PyObject_GetAttr(obj, names->strides) : NULL;
  PyObject* dtype = strides ? PyObject_GetAttr(obj, names->dtype) : NULL;
  int rc;
  if (dtype == NULL) {
    PyErr_Clear(); /* not the attributes of the CuPy we know: its interface says */
    rc = CB_CUPY_GENERIC;
  } else {
    rc = cb_cupy_fill(m, a, ptr, device, shape, strides, dtype);
  }
  Py_XDECREF(data);
  Py_XDECREF(ptr);
  Py_XDECREF(device);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(dtype);
  st->read = rc == CB_CUPY_GENERIC ? -1 : 1;
  if (rc != 0) return rc;
  a->keep = Py_NewRef(obj);
  /* CuPy's kernels that wrote the array ran on its current stream. */
  if (consumer == CB_STREAM_UNORDERED || !cb_on_cuda(m)) return 0;
  return cb_cupy_current_stream(m, &a->v.producer);
}

static int cb_cupy_current_stream(cb_module* m, uintptr_t* handle) {
  *handle = 0;
  PyObject* stream = PyObject_CallNoArgs(m->cupy.current_stream);
  PyObject* ptr = stream ? PyObject_GetAttr(stream, m->names.ptr) : NULL;
  Py_XDECREF(stream);
  if (ptr == NULL) return -1;
  unsigned long long h = PyLong_AsUnsignedLongLong(ptr);
  Py_DECREF(ptr);
  if (PyErr_Occurred()) return -1;
  *handle = h != 0 ? (uintptr_t)h : m->cupy.default_stream;
  return 0;
}

int cb_cupy_state(const cb_module* m) { return m->cupy.read; }

int cb_cupy_traverse(cb_module* m, visitproc visit, void* arg) {
  Py_VISIT(m->cupy.current_stream);
  CB_VISIT_ALL(m->cupy.dtype_seen, CB_CUPY_DTYPES);
  return 0;
}

void cb_cupy_clear(cb_module* m) {
  Py_CLEAR(m->cupy.current_stream);
  CB_CLEAR_ALL(m->cupy.dtype_seen, CB_CUPY_DTYPES);
  m->cupy.ready = 0;
}
