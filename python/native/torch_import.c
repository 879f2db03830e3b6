/* torch.Tensor into the array view: through torch's DLPack C exchange table
 * when it has one (one C call), else by reading the tensor's attributes. */
#include "torch_import.h"

#include "backend.h"
#include "dlpack_import.h"
#include "dtypes.h"
#include "module.h"

enum {
  T_DATA_PTR,
  T_DTYPE,
  T_SHAPE,
  T_IS_CONTIGUOUS,
  T_STRIDE,
  T_IS_CUDA,
  T_IS_CPU,
  T_GET_DEVICE,
  T_REQUIRES_GRAD,
  T_LAYOUT,
};

static const char* const cb_torch_names[CB_TORCH_NAMES] = {
    "data_ptr", "dtype",  "shape",      "is_contiguous", "stride",
    "is_cuda",  "is_cpu", "get_device", "requires_grad", "layout"};

/* torch.Tensor's DLPack exchange table (torch >= 2.10): its DLTensor filler,
 * when the table is DLPack 1.2 or a later 1.x. Its absence is not an error. */
static int cb_torch_exchange_setup(cb_torch* st, PyObject* torch) {
  st->tensor = PyObject_GetAttrString(torch, "Tensor");
  if (st->tensor == NULL) {
    PyErr_Clear();
    return 0;
  }
  PyObject* capsule = PyObject_GetAttrString(st->tensor, "__dlpack_c_exchange_api__");
  if (capsule == NULL) {
    PyErr_Clear();
    return 0;
  }
  const DLPackExchangeAPI* api =
      PyCapsule_IsValid(capsule, CB_DL_EXCHANGE_API)
          ? (const DLPackExchangeAPI*)PyCapsule_GetPointer(capsule, CB_DL_EXCHANGE_API)
          : NULL;
  /* The table lives as long as the process (DLPack's rule for producers). */
  if (api != NULL && api->header.version.major == 1 && api->header.version.minor >= 2) {
    st->dl_fill = api->dltensor_from_py_object_no_sync;
    st->work_stream = api->current_work_stream;
  }
  Py_DECREF(capsule);
  PyErr_Clear();
  return 0;
}

/* torch's dtype objects named like the ABI's dtypes (torch.float32, ...). */
static int cb_torch_setup(cb_module* m) {
  cb_torch* st = &m->torch;
  PyObject* torch = PyImport_ImportModule("torch"); /* already imported: a dict lookup */
  if (torch == NULL) return -1;
  int rc = 0;
  for (int i = 0; i < m->dtypes.count && rc == 0; i++) {
    st->dtypes[i] = PyObject_GetAttrString(torch, m->dtypes.info[i].name);
    if (st->dtypes[i] == NULL) PyErr_Clear(); /* torch has no such dtype */
  }
  st->strided = PyObject_GetAttrString(torch, "strided");
  if (st->strided == NULL) rc = -1;
  if (rc == 0) rc = cb_torch_exchange_setup(st, torch);
  for (int i = 0; i < CB_TORCH_NAMES && rc == 0; i++) {
    st->names[i] = PyUnicode_InternFromString(cb_torch_names[i]);
    if (st->names[i] == NULL) rc = -1;
  }
  Py_DECREF(torch);
  st->ready = rc == 0;
  return rc;
}

static PyObject* cb_get(cb_torch* st, PyObject* t, int name) {
  return PyObject_GetAttr(t, st->names[name]);
}

static PyObject* cb_call0(cb_torch* st, PyObject* t, int name) {
  return PyObject_CallMethodObjArgs(t, st->names[name], NULL);
}

/* A bool attribute: 1, 0, or -1 with an error. */
static int cb_flag(cb_torch* st, PyObject* t, int name) {
  PyObject* v = cb_get(st, t, name);
  if (v == NULL) return -1;
  int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}

static int cb_torch_where(cb_torch* st, PyObject* t, cubridge_view* v) {
  int cuda = cb_flag(st, t, T_IS_CUDA);
  if (cuda < 0) return -1;
  if (cuda) {
    PyObject* dev = cb_call0(st, t, T_GET_DEVICE);
    if (dev == NULL) return -1;
    v->device = (int)PyLong_AsLong(dev);
    Py_DECREF(dev);
    if (PyErr_Occurred()) return -1;
    v->memory = CUBRIDGE_MEMORY_DEVICE;
    return 0;
  }
  int cpu = cb_flag(st, t, T_IS_CPU);
  if (cpu <= 0) return cpu < 0 ? -1 : CB_TORCH_GENERIC; /* meta, mps, ...: torch's errors */
  v->memory = CUBRIDGE_MEMORY_HOST;
  v->device = -1;
  return 0;
}

/* An exact torch.Tensor through the exchange table: 1 when `v` is filled, 0
 * when the attributes must say (another device, dtype or layout, or a
 * subclass), -1 with an error. */
static int cb_torch_exchange(cb_module* m, PyObject* t, cb_arg* a) {
  cb_torch* st = &m->torch;
  if (st->dl_fill == NULL || (PyObject*)Py_TYPE(t) != st->tensor) return 0;
  DLTensor dl;
  if (st->dl_fill(t, &dl) != 0) {
    PyErr_Clear(); /* a sparse tensor, say: the attribute path names it */
    return 0;
  }
  if ((dl.device.device_type != kDLCUDA && dl.device.device_type != kDLCPU) ||
      cb_dtype_from_dl(m, dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) < 0) {
    return 0;
  }
  if (cb_arg_from_dltensor(m, &dl, a) < 0) return -1;
  a->keep = Py_NewRef(t);
  return 1;
}

/* Fills `a` from the tensor's attributes: 0, -1, or CB_TORCH_GENERIC. */
static int cb_torch_attributes(cb_module* m, PyObject* t, cb_arg* a) {
  cb_torch* st = &m->torch;
  cubridge_view* v = &a->v;
  PyObject* layout = cb_get(st, t, T_LAYOUT);
  if (layout == NULL) return -1;
  Py_DECREF(layout); /* identity is all we need: torch.strided is a singleton */
  if (layout != st->strided) return CB_TORCH_GENERIC;
  int where = cb_torch_where(st, t, v);
  if (where != 0) return where;
  a->keep = Py_NewRef(t);
  PyObject* dtype = cb_get(st, t, T_DTYPE);
  if (dtype == NULL) return -1;
  for (int i = 0; i < m->dtypes.count; i++) {
    if (st->dtypes[i] == dtype) v->dtype = i;
  }
  if (v->dtype < 0) {
    PyObject* repr = PyObject_Str(dtype);
    const char* s = repr ? PyUnicode_AsUTF8AndSize(repr, NULL) : NULL;
    PyOS_snprintf(a->dtype_desc, sizeof a->dtype_desc, "%.48s", s ? s : "(a torch dtype)");
    Py_XDECREF(repr);
    PyErr_Clear();
  }
  Py_DECREF(dtype);
  PyObject* shape = cb_get(st, t, T_SHAPE);
  if (shape == NULL) return -1;
  int rc = cb_int64_tuple(shape, a->shape, CB_MAX_NDIM, &v->ndim);
  Py_DECREF(shape);
  if (rc == CB_TUPLE_TOO_LONG) return 0; /* the check reports the dimensions */
  if (rc < 0) {
    PyErr_Format(PyExc_ValueError, "%s: torch gave a shape that is not a tuple of ints", v->name);
    return -1;
  }
  PyObject* contiguous = cb_call0(st, t, T_IS_CONTIGUOUS);
  if (contiguous == NULL) return -1;
  int is_contiguous = PyObject_IsTrue(contiguous);
  Py_DECREF(contiguous);
  if (is_contiguous < 0) return -1;
  if (!is_contiguous) { /* let the check say which stride is wrong */
    PyObject* strides = cb_call0(st, t, T_STRIDE);
    int n = 0;
    if (strides == NULL || cb_int64_tuple(strides, a->strides, CB_MAX_NDIM, &n) != 0 ||
        n != v->ndim) {
      Py_XDECREF(strides);
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "%s: torch gave strides that do not match its shape",
                     v->name);
      return -1;
    }
    Py_DECREF(strides);
    v->strides = a->strides;
  }
  PyObject* ptr = cb_call0(st, t, T_DATA_PTR);
  if (ptr == NULL) return -1;
  v->data = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  return v->data == NULL && PyErr_Occurred() ? -1 : 0;
}

static int cb_torch_current_stream(cb_module* m, int device, uintptr_t* handle);

int cb_import_torch(cb_module* m, PyObject* t, uintptr_t consumer, cb_arg* a) {
  cb_torch* st = &m->torch;
  if (!st->ready && cb_torch_setup(m) < 0) return -1;
  int grad = cb_flag(st, t, T_REQUIRES_GRAD);
  if (grad != 0) return grad < 0 ? -1 : CB_TORCH_GENERIC;
  int rc = cb_torch_exchange(m, t, a);
  rc = rc == 0 ? cb_torch_attributes(m, t, a) : rc < 0 ? -1 : 0;
  if (rc != 0 || a->v.memory != CUBRIDGE_MEMORY_DEVICE) return rc;
  a->v.source = "a torch CUDA tensor";
  /* torch's kernels that wrote the tensor ran on its current stream. */
  if (consumer == CB_STREAM_UNORDERED || !cb_on_cuda(m)) return 0;
  return cb_torch_current_stream(m, a->v.device, &a->v.producer);
}

/* torch.cuda.current_stream(device).cuda_stream, for a torch without the
 * exchange table's entry. */
static int cb_torch_current_stream_py(cb_torch* st, int device, uintptr_t* handle) {
  if (st->current_stream == NULL) {
    PyObject* cuda = PyImport_ImportModule("torch.cuda");
    st->current_stream = cuda ? PyObject_GetAttrString(cuda, "current_stream") : NULL;
    Py_XDECREF(cuda);
    if (st->current_stream == NULL) return -1;
  }
  PyObject* stream = PyObject_CallFunction(st->current_stream, "i", device);
  PyObject* h = stream ? PyObject_GetAttrString(stream, "cuda_stream") : NULL;
  Py_XDECREF(stream);
  if (h == NULL) return -1;
  *handle = (uintptr_t)PyLong_AsUnsignedLongLong(h);
  Py_DECREF(h);
  return PyErr_Occurred() ? -1 : 0;
}

static int cb_torch_current_stream(cb_module* m, int device, uintptr_t* handle) {
  cb_torch* st = &m->torch;
  *handle = 0;
  if (st->work_stream == NULL) return cb_torch_current_stream_py(st, device, handle);
  void* stream = NULL;
  if (st->work_stream(kDLCUDA, device, &stream) != 0) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_RuntimeError, "torch did not say its current stream of device %d", device);
    return -1;
  }
  *handle = (uintptr_t)stream;
  return 0;
}

int cb_torch_state(const cb_module* m) {
  return !m->torch.ready ? 0 : m->torch.dl_fill != NULL ? 1 : -1;
}

int cb_torch_traverse(cb_module* m, visitproc visit, void* arg) {
  cb_torch* st = &m->torch;
  CB_VISIT_ALL(st->dtypes, CB_MAX_DTYPES);
  CB_VISIT_ALL(st->names, CB_TORCH_NAMES);
  Py_VISIT(st->strided);
  Py_VISIT(st->tensor);
  Py_VISIT(st->current_stream);
  return 0;
}

void cb_torch_clear(cb_module* m) {
  cb_torch* st = &m->torch;
  CB_CLEAR_ALL(st->dtypes, CB_MAX_DTYPES);
  CB_CLEAR_ALL(st->names, CB_TORCH_NAMES);
  Py_CLEAR(st->strided);
  Py_CLEAR(st->tensor);
  Py_CLEAR(st->current_stream);
  st->dl_fill = NULL;
  st->work_stream = NULL;
  st->ready = 0;
}
