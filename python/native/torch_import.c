/* torch.Tensor into the array view: through torch's DLPack C exchange table
 * when it has one (one C call), else by reading the tensor's attributes. */
#include "torch_import.h"

#include "dlpack_import.h"
#include "dtypes.h"

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
static int cb_torch_exchange_setup(cb_state* st, PyObject* torch) {
  st->torch_tensor = PyObject_GetAttrString(torch, "Tensor");
  if (st->torch_tensor == NULL) {
    PyErr_Clear();
    return 0;
  }
  PyObject* capsule = PyObject_GetAttrString(st->torch_tensor, "__dlpack_c_exchange_api__");
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
    st->torch_dl_fill = api->dltensor_from_py_object_no_sync;
    st->torch_work_stream = api->current_work_stream;
  }
  Py_DECREF(capsule);
  PyErr_Clear();
  return 0;
}

/* torch's dtype objects named like the ABI's dtypes (torch.float32, ...). */
static int cb_torch_setup(cb_state* st) {
  PyObject* torch = PyImport_ImportModule("torch"); /* already imported: a dict lookup */
  if (torch == NULL) return -1;
  int rc = 0;
  for (int i = 0; i < st->dtype_count && rc == 0; i++) {
    st->torch_dtypes[i] = PyObject_GetAttrString(torch, st->dtypes[i].name);
    if (st->torch_dtypes[i] == NULL) PyErr_Clear(); /* torch has no such dtype */
  }
  st->torch_strided = PyObject_GetAttrString(torch, "strided");
  if (st->torch_strided == NULL) rc = -1;
  if (rc == 0) rc = cb_torch_exchange_setup(st, torch);
  for (int i = 0; i < CB_TORCH_NAMES && rc == 0; i++) {
    st->torch_names[i] = PyUnicode_InternFromString(cb_torch_names[i]);
    if (st->torch_names[i] == NULL) rc = -1;
  }
  Py_DECREF(torch);
  st->torch_ready = rc == 0;
  return rc;
}

static PyObject* cb_get(cb_state* st, PyObject* t, int name) {
  return PyObject_GetAttr(t, st->torch_names[name]);
}

static PyObject* cb_call0(cb_state* st, PyObject* t, int name) {
  return PyObject_CallMethodObjArgs(t, st->torch_names[name], NULL);
}

/* A bool attribute: 1, 0, or -1 with an error. */
static int cb_flag(cb_state* st, PyObject* t, int name) {
  PyObject* v = cb_get(st, t, name);
  if (v == NULL) return -1;
  int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}

static int cb_torch_where(cb_state* st, PyObject* t, cb_view* v) {
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
static int cb_torch_exchange(cb_state* st, PyObject* t, cb_view* v) {
  if (st->torch_dl_fill == NULL || (PyObject*)Py_TYPE(t) != st->torch_tensor) return 0;
  DLTensor dl;
  if (st->torch_dl_fill(t, &dl) != 0) {
    PyErr_Clear(); /* a sparse tensor, say: the attribute path names it */
    return 0;
  }
  if ((dl.device.device_type != kDLCUDA && dl.device.device_type != kDLCPU) ||
      cb_dtype_from_dl(st, dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) < 0) {
    return 0;
  }
  if (cb_view_from_dltensor(st, &dl, v) < 0) return -1;
  v->keep = Py_NewRef(t);
  return 1;
}

int cb_import_torch(cb_state* st, PyObject* t, cb_view* v) {
  if (!st->torch_ready && cb_torch_setup(st) < 0) return -1;
  int grad = cb_flag(st, t, T_REQUIRES_GRAD);
  if (grad != 0) return grad < 0 ? -1 : CB_TORCH_GENERIC;
  int fast = cb_torch_exchange(st, t, v);
  if (fast != 0) return fast < 0 ? -1 : 0;
  PyObject* layout = cb_get(st, t, T_LAYOUT);
  if (layout == NULL) return -1;
  Py_DECREF(layout); /* identity is all we need: torch.strided is a singleton */
  if (layout != st->torch_strided) return CB_TORCH_GENERIC;
  int where = cb_torch_where(st, t, v);
  if (where != 0) return where;
  v->keep = Py_NewRef(t);
  PyObject* dtype = cb_get(st, t, T_DTYPE);
  if (dtype == NULL) return -1;
  for (int i = 0; i < st->dtype_count; i++) {
    if (st->torch_dtypes[i] == dtype) v->dtype = i;
  }
  if (v->dtype < 0) {
    PyObject* repr = PyObject_Str(dtype);
    const char* s = repr ? PyUnicode_AsUTF8AndSize(repr, NULL) : NULL;
    PyOS_snprintf(v->dtype_desc, sizeof v->dtype_desc, "%.48s", s ? s : "(a torch dtype)");
    Py_XDECREF(repr);
    PyErr_Clear();
  }
  Py_DECREF(dtype);
  PyObject* shape = cb_get(st, t, T_SHAPE);
  if (shape == NULL) return -1;
  int rc = cb_int64_tuple(shape, v->shape, CB_MAX_NDIM, &v->ndim);
  Py_DECREF(shape);
  if (rc == CB_TUPLE_TOO_LONG) return 0; /* the validator reports the dimensions */
  if (rc < 0) {
    PyErr_Format(PyExc_ValueError, "%s: torch gave a shape that is not a tuple of ints", v->name);
    return -1;
  }
  PyObject* contiguous = cb_call0(st, t, T_IS_CONTIGUOUS);
  if (contiguous == NULL) return -1;
  int is_contiguous = PyObject_IsTrue(contiguous);
  Py_DECREF(contiguous);
  if (is_contiguous < 0) return -1;
  if (!is_contiguous) { /* let the validator say which stride is wrong */
    PyObject* strides = cb_call0(st, t, T_STRIDE);
    int n = 0;
    if (strides == NULL || cb_int64_tuple(strides, v->strides, CB_MAX_NDIM, &n) != 0 ||
        n != v->ndim) {
      Py_XDECREF(strides);
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_ValueError, "%s: torch gave strides that do not match its shape",
                     v->name);
      return -1;
    }
    Py_DECREF(strides);
    v->has_strides = 1;
  }
  PyObject* ptr = cb_call0(st, t, T_DATA_PTR);
  if (ptr == NULL) return -1;
  v->data = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  return v->data == NULL && PyErr_Occurred() ? -1 : 0;
}

/* torch.cuda.current_stream(device).cuda_stream, for a torch without the
 * exchange table's entry. */
static int cb_torch_current_stream_py(cb_state* st, int device, uintptr_t* handle) {
  if (st->torch_current_stream == NULL) {
    PyObject* cuda = PyImport_ImportModule("torch.cuda");
    st->torch_current_stream = cuda ? PyObject_GetAttrString(cuda, "current_stream") : NULL;
    Py_XDECREF(cuda);
    if (st->torch_current_stream == NULL) return -1;
  }
  PyObject* stream = PyObject_CallFunction(st->torch_current_stream, "i", device);
  PyObject* h = stream ? PyObject_GetAttrString(stream, "cuda_stream") : NULL;
  Py_XDECREF(stream);
  if (h == NULL) return -1;
  *handle = (uintptr_t)PyLong_AsUnsignedLongLong(h);
  Py_DECREF(h);
  return PyErr_Occurred() ? -1 : 0;
}

int cb_torch_current_stream(cb_state* st, int device, uintptr_t* handle) {
  *handle = 0;
  if (st->torch_work_stream == NULL) return cb_torch_current_stream_py(st, device, handle);
  void* stream = NULL;
  if (st->torch_work_stream(kDLCUDA, device, &stream) != 0) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_RuntimeError, "torch did not say its current stream of device %d", device);
    return -1;
  }
  *handle = (uintptr_t)stream;
  return 0;
}
