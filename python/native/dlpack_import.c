/* __dlpack__ producers into the array view, versioned (1.x) and legacy capsules. */
#include "dlpack_import.h"

#include "dtypes.h"
#include "module.h"

/* A DLPack device number from `item`; 0, or -1 when it is no int in int32's range. */
static int cb_dl_device_number(PyObject* item, int32_t* out) {
  if (!PyLong_Check(item)) return -1;
  long v = PyLong_AsLong(item);
  if ((v == -1 && PyErr_Occurred()) || v != (int32_t)v) {
    PyErr_Clear();
    return -1;
  }
  *out = (int32_t)v;
  return 0;
}

int cb_dlpack_query_device(const cb_module* m, PyObject* obj, const char* name, int32_t* type,
                           int32_t* id) {
  *type = kDLCPU;
  *id = 0;
  PyObject* method = PyObject_GetAttr(obj, m->names.dlpack_device);
  if (method == NULL) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
  }
  PyObject* t = PyObject_CallNoArgs(method);
  Py_DECREF(method);
  if (t == NULL) return -1;
  int ok = PyTuple_Check(t) && PyTuple_Size(t) == 2 &&
           cb_dl_device_number(PyTuple_GetItem(t, 0), type) == 0 &&
           cb_dl_device_number(PyTuple_GetItem(t, 1), id) == 0;
  if (!ok) {
    PyObject* got = PyObject_Repr(t);
    if (got != NULL)
      PyErr_Format(PyExc_TypeError,
                   "%s.__dlpack_device__() must return (device_type, device_id), two ints; it "
                   "returned %.80U",
                   name, got);
    Py_XDECREF(got);
  }
  Py_DECREF(t);
  return ok ? 0 : -1;
}

/* obj.__dlpack__(stream=..., max_version=(1, 0)); producers that predate
 * DLPack 1.0 raise TypeError for max_version and are asked again without it. */
static PyObject* cb_dl_call(const cb_module* m, PyObject* obj, PyObject* stream) {
  PyObject* method = PyObject_GetAttr(obj, m->names.dlpack);
  if (method == NULL) return NULL;
  PyObject* empty = PyTuple_New(0);
  PyObject* kwargs = PyDict_New();
  PyObject* capsule = NULL;
  if (empty == NULL || kwargs == NULL) goto done;
  if (stream != NULL && PyDict_SetItem(kwargs, m->names.stream, stream) < 0) goto done;
  if (PyDict_SetItem(kwargs, m->names.max_version, m->names.dlpack_version) < 0) goto done;
  capsule = PyObject_Call(method, empty, kwargs);
  if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    if (PyDict_DelItem(kwargs, m->names.max_version) < 0) goto done;
    capsule = PyObject_Call(method, empty, kwargs);
  }
done:
  Py_XDECREF(kwargs);
  Py_XDECREF(empty);
  Py_DECREF(method);
  return capsule;
}

static const char* cb_dl_code_name(uint8_t code) {
  static const char* const names[] = {"int",    "uint",    "float", "opaque",
                                      "bfloat", "complex", "bool"};
  return code < 7 ? names[code] : "code";
}

/* Takes the tensor out of the capsule (renaming it "used_..."). */
static DLTensor* cb_dl_take(PyObject* capsule, cb_arg* a, uint64_t* flags) {
  const cubridge_view* v = &a->v;
  *flags = 0;
  if (PyCapsule_IsValid(capsule, CB_DL_VERSIONED)) {
    DLManagedTensorVersioned* m = PyCapsule_GetPointer(capsule, CB_DL_VERSIONED);
    if (m == NULL || PyCapsule_SetName(capsule, CB_DL_USED_VERSIONED) < 0) return NULL;
    a->dl = m;
    a->dl_versioned = 1;
    if (m->version.major != DLPACK_MAJOR_VERSION) {
      PyErr_Format(PyExc_BufferError, "%s: DLPack version %u.%u is not supported", v->name,
                   (unsigned)m->version.major, (unsigned)m->version.minor);
      return NULL;
    }
    *flags = m->flags;
    return &m->dl_tensor;
  }
  if (PyCapsule_IsValid(capsule, CB_DL_LEGACY)) {
    DLManagedTensor* m = PyCapsule_GetPointer(capsule, CB_DL_LEGACY);
    if (m == NULL || PyCapsule_SetName(capsule, CB_DL_USED_LEGACY) < 0) return NULL;
    a->dl = m;
    return &m->dl_tensor;
  }
  PyErr_Format(PyExc_TypeError, "%s.__dlpack__() did not return an unused DLPack capsule", v->name);
  return NULL;
}

static int cb_dl_memory(const DLTensor* t, cubridge_view* v) {
  switch (t->device.device_type) {
    case kDLCPU:
      v->memory = CUBRIDGE_MEMORY_HOST;
      v->device = -1;
      return 0;
    case kDLCUDAHost:
      v->memory = CUBRIDGE_MEMORY_PINNED;
      v->device = -1;
      return 0;
    case kDLCUDA:
      v->memory = CUBRIDGE_MEMORY_DEVICE;
      v->device = t->device.device_id;
      if (v->source == NULL) v->source = "DLPack kDLCUDA";
      return 0;
    case kDLCUDAManaged:
      v->memory = CUBRIDGE_MEMORY_MANAGED;
      v->device = t->device.device_id;
      return 0;
    default:
      PyErr_Format(PyExc_ValueError,
                   "%s lives on DLPack device type %d, which cubridge cannot use (CPU and CUDA "
                   "only)",
                   v->name, (int)t->device.device_type);
      return -1;
  }
}

int cb_import_dlpack(const cb_module* m, PyObject* obj, int32_t dev_type, uintptr_t consumer,
                     cb_arg* a) {
  PyObject* stream_obj = NULL;
  if (dev_type == kDLCUDA || dev_type == kDLCUDAManaged) {
    /* The producer makes the data ready on the stream our op will use. */
    stream_obj = consumer == CB_STREAM_UNORDERED
                     ? PyLong_FromLong(-1)
                     : PyLong_FromUnsignedLongLong((unsigned long long)cb_norm_stream(consumer));
    if (stream_obj == NULL) return -1;
  }
  PyObject* capsule = cb_dl_call(m, obj, stream_obj);
  Py_XDECREF(stream_obj);
  if (capsule == NULL) return -1;
  uint64_t flags;
  DLTensor* t = cb_dl_take(capsule, a, &flags);
  Py_DECREF(capsule);
  if (t == NULL) return -1;
  if (cb_arg_from_dltensor(m, t, a) < 0) return -1;
  if ((flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) a->v.flags |= CUBRIDGE_VIEW_READONLY;
  return 0;
}

int cb_arg_from_dltensor(const cb_module* m, const DLTensor* t, cb_arg* a) {
  cubridge_view* v = &a->v;
  v->dtype = cb_dtype_from_dl(m, t->dtype.code, t->dtype.bits, t->dtype.lanes);
  if (v->dtype < 0) {
    PyOS_snprintf(a->dtype_desc, sizeof a->dtype_desc, "%s%d (lanes %d)",
                  cb_dl_code_name(t->dtype.code), (int)t->dtype.bits, (int)t->dtype.lanes);
  }
  v->ndim = t->ndim;
  if (t->ndim >= 0 && t->ndim <= CB_MAX_NDIM) {
    for (int i = 0; i < t->ndim; i++) a->shape[i] = t->shape[i];
    if (t->strides != NULL) {
      for (int i = 0; i < t->ndim; i++) a->strides[i] = t->strides[i];
      v->strides = a->strides;
    }
  }
  v->data = (char*)t->data + t->byte_offset;
  return cb_dl_memory(t, v);
}
