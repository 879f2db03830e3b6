/* DLPack: importing __dlpack__ producers (consumer side) and exporting
 * cubridge.Array (producer side), versioned (1.x) and legacy capsules. */
#include "dlpack.h"

#include <stdlib.h>
#include <string.h>

#include "native.h"

static const char kVersioned[] = "dltensor_versioned";
static const char kLegacy[] = "dltensor";
static const char kUsedVersioned[] = "used_dltensor_versioned";
static const char kUsedLegacy[] = "used_dltensor";

/* ---- consumer --------------------------------------------------------- */

void cb_dlpack_release(void* dl, int versioned) {
  if (versioned) {
    DLManagedTensorVersioned* m = dl;
    if (m->deleter) m->deleter(m);
  } else {
    DLManagedTensor* m = dl;
    if (m->deleter) m->deleter(m);
  }
}

static int cb_dl_dtype(DLDataType t) {
  if (t.lanes != 1) return -1;
  if (t.code == kDLFloat) {
    return t.bits == 32   ? CUBRIDGE_FLOAT32
           : t.bits == 64 ? CUBRIDGE_FLOAT64
           : t.bits == 16 ? CUBRIDGE_FLOAT16
                          : -1;
  }
  if (t.code == kDLInt) return t.bits == 32 ? CUBRIDGE_INT32 : t.bits == 64 ? CUBRIDGE_INT64 : -1;
  if (t.code == kDLBfloat) return t.bits == 16 ? CUBRIDGE_BFLOAT16 : -1;
  return -1;
}

static const char* cb_dl_code_name(uint8_t code) {
  static const char* const names[] = {"int",    "uint",    "float", "opaque",
                                      "bfloat", "complex", "bool"};
  return code < 7 ? names[code] : "code";
}

/* Asks `obj` for its device with __dlpack_device__ (kDLCPU if it has none). */
static int cb_dl_query_device(PyObject* obj, int32_t* type, int32_t* id) {
  *type = kDLCPU;
  *id = 0;
  if (!PyObject_HasAttrString(obj, "__dlpack_device__")) return 0;
  PyObject* t = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
  if (t == NULL) return -1;
  int ok = PyTuple_Check(t) && PyTuple_Size(t) == 2;
  if (ok) {
    *type = (int32_t)PyLong_AsLong(PyTuple_GetItem(t, 0));
    *id = (int32_t)PyLong_AsLong(PyTuple_GetItem(t, 1));
  }
  Py_DECREF(t);
  if (PyErr_Occurred()) return -1;
  if (!ok) PyErr_SetString(PyExc_TypeError, "__dlpack_device__() must return a 2-tuple");
  return ok ? 0 : -1;
}

/* obj.__dlpack__(stream=..., max_version=(1, 0)), falling back to the
 * unversioned call for producers that predate DLPack 1.0. */
static PyObject* cb_dl_call(PyObject* obj, PyObject* stream) {
  PyObject* method = PyObject_GetAttrString(obj, "__dlpack__");
  if (method == NULL) return NULL;
  PyObject* empty = PyTuple_New(0);
  PyObject* kwargs = PyDict_New();
  PyObject* capsule = NULL;
  if (empty == NULL || kwargs == NULL) goto done;
  if (stream != NULL && PyDict_SetItemString(kwargs, "stream", stream) < 0) goto done;
  PyObject* version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  if (version == NULL) goto done;
  int rc = PyDict_SetItemString(kwargs, "max_version", version);
  Py_DECREF(version);
  if (rc < 0) goto done;
  capsule = PyObject_Call(method, empty, kwargs);
  if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    if (PyDict_DelItemString(kwargs, "max_version") < 0) goto done;
    capsule = PyObject_Call(method, empty, kwargs);
  }
done:
  Py_XDECREF(kwargs);
  Py_XDECREF(empty);
  Py_DECREF(method);
  return capsule;
}

int cb_dlpack_import(PyObject* obj, int writable, uintptr_t stream, cb_arg* arg) {
  int32_t dev_type, dev_id;
  if (cb_dl_query_device(obj, &dev_type, &dev_id) < 0) return -1;
  PyObject* stream_obj = NULL;
  if (dev_type == kDLCUDA || dev_type == kDLCUDAManaged) {
    /* The producer makes the data ready on the stream our op will use. */
    stream_obj = PyLong_FromUnsignedLongLong((unsigned long long)cb_norm_stream(stream));
    if (stream_obj == NULL) return -1;
  }
  PyObject* capsule = cb_dl_call(obj, stream_obj);
  Py_XDECREF(stream_obj);
  if (capsule == NULL) return -1;
  DLTensor* t = NULL;
  uint64_t flags = 0;
  if (PyCapsule_IsValid(capsule, kVersioned)) {
    DLManagedTensorVersioned* m = PyCapsule_GetPointer(capsule, kVersioned);
    if (m == NULL || PyCapsule_SetName(capsule, kUsedVersioned) < 0) goto fail;
    arg->dl = m;
    arg->dl_versioned = 1;
    if (m->version.major != DLPACK_MAJOR_VERSION) {
      PyErr_Format(PyExc_BufferError, "%s: DLPack version %u.%u is not supported", arg->name,
                   (unsigned)m->version.major, (unsigned)m->version.minor);
      goto fail;
    }
    t = &m->dl_tensor;
    flags = m->flags;
  } else if (PyCapsule_IsValid(capsule, kLegacy)) {
    DLManagedTensor* m = PyCapsule_GetPointer(capsule, kLegacy);
    if (m == NULL || PyCapsule_SetName(capsule, kUsedLegacy) < 0) goto fail;
    arg->dl = m;
    t = &m->dl_tensor;
  } else {
    PyErr_Format(PyExc_TypeError, "%s.__dlpack__() did not return an unused DLPack capsule",
                 arg->name);
    goto fail;
  }
  Py_DECREF(capsule);
  capsule = NULL;

  arg->dtype = cb_dl_dtype(t->dtype);
  if (arg->dtype < 0) {
    PyErr_Format(PyExc_TypeError,
                 "%s has unsupported dtype %s%d (lanes %d); cubridge supports float32, float64, "
                 "int32, int64, float16 and bfloat16",
                 arg->name, cb_dl_code_name(t->dtype.code), (int)t->dtype.bits,
                 (int)t->dtype.lanes);
    return -1;
  }
  if (t->ndim < 0 || t->ndim > CB_MAX_NDIM) {
    PyErr_Format(PyExc_ValueError, "%s has %d dimensions; at most %d are supported", arg->name,
                 (int)t->ndim, CB_MAX_NDIM);
    return -1;
  }
  arg->ndim = t->ndim;
  arg->n = 1;
  for (int i = 0; i < t->ndim; i++) {
    arg->shape[i] = t->shape[i];
    arg->n *= (size_t)t->shape[i];
  }
  if (t->strides != NULL && arg->n != 0) {
    int64_t expected = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
      if (t->shape[i] != 1 && t->strides[i] != expected) {
        PyErr_Format(PyExc_ValueError,
                     "%s must be C-contiguous (its stride %lld elements in dimension %d should "
                     "be %lld); pass a contiguous copy",
                     arg->name, (long long)t->strides[i], i, (long long)expected);
        return -1;
      }
      expected *= t->shape[i];
    }
  }
  arg->ptr = (char*)t->data + t->byte_offset;
  arg->readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  if (writable && arg->readonly) {
    PyErr_Format(PyExc_ValueError, "%s is read-only; pass a writable array", arg->name);
    return -1;
  }
  switch (t->device.device_type) {
    case kDLCPU:
      arg->home = CB_HOME_HOST;
      arg->device = -1;
      break;
    case kDLCUDAHost:
      arg->home = CB_HOME_PINNED;
      arg->device = -1;
      break;
    case kDLCUDA:
      arg->home = CB_HOME_DEVICE;
      arg->device = t->device.device_id;
      break;
    case kDLCUDAManaged:
      arg->home = CB_HOME_MANAGED;
      arg->device = t->device.device_id;
      break;
    default:
      PyErr_Format(PyExc_ValueError,
                   "%s lives on DLPack device type %d, which cubridge cannot use (CPU and CUDA "
                   "only)",
                   arg->name, (int)t->device.device_type);
      return -1;
  }
  return 0;
fail:
  Py_XDECREF(capsule);
  return -1;
}

/* ---- producer --------------------------------------------------------- */

void cb_array_dldevice(const cb_array* self, int32_t* type, int32_t* id) {
  *id = self->device;
  if (cb_backend() != CUBRIDGE_BACKEND_CUDA) {
    PyErr_Clear();
    *type = kDLCPU;
    *id = 0;
  } else if (self->kind == CUBRIDGE_MEMORY_DEVICE) {
    *type = kDLCUDA;
  } else if (self->kind == CUBRIDGE_MEMORY_MANAGED) {
    *type = kDLCUDAManaged;
  } else {
    *type = kDLCUDAHost;
    *id = 0;
  }
}

PyObject* cb_dlpack_device(cb_array* self, PyObject* unused) {
  (void)unused;
  int32_t type, id;
  cb_array_dldevice(self, &type, &id);
  return Py_BuildValue("(ii)", (int)type, (int)id);
}

/* The managed tensor owns a reference to the Array; shape and strides follow
 * the struct in the same allocation. */
static void cb_dl_drop_owner(void* ctx) {
  if (ctx == NULL || !Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject*)ctx);
  PyGILState_Release(g);
}

static void cb_dl_delete_versioned(DLManagedTensorVersioned* self) {
  cb_dl_drop_owner(self->manager_ctx);
  free(self);
}

static void cb_dl_delete_legacy(DLManagedTensor* self) {
  cb_dl_drop_owner(self->manager_ctx);
  free(self);
}

static void cb_dl_capsule_destructor(PyObject* capsule) {
  PyObject *t, *v, *tb;
  PyErr_Fetch(&t, &v, &tb);
  if (PyCapsule_IsValid(capsule, kVersioned)) {
    cb_dlpack_release(PyCapsule_GetPointer(capsule, kVersioned), 1);
  } else if (PyCapsule_IsValid(capsule, kLegacy)) {
    cb_dlpack_release(PyCapsule_GetPointer(capsule, kLegacy), 0);
  }
  PyErr_Restore(t, v, tb);
}

static void cb_dl_fill(DLTensor* t, cb_array* a, int32_t dev_type, int32_t dev_id, int64_t* dims) {
  static const DLDataType types[CB_NUM_DTYPES] = {{kDLFloat, 32, 1}, {kDLFloat, 64, 1},
                                                  {kDLInt, 32, 1},   {kDLInt, 64, 1},
                                                  {kDLFloat, 16, 1}, {kDLBfloat, 16, 1}};
  t->data = a->ptr;
  t->device.device_type = dev_type;
  t->device.device_id = dev_id;
  t->ndim = a->ndim;
  t->dtype = types[a->dtype];
  t->shape = dims;
  t->strides = dims + a->ndim;
  t->byte_offset = 0;
  size_t itemsize = cb_dtype_size(a->dtype);
  for (int i = 0; i < a->ndim; i++) {
    dims[i] = (int64_t)a->shape[i];
    dims[a->ndim + i] = (int64_t)a->strides[i] / (int64_t)itemsize;
  }
}

static PyObject* cb_dl_capsule(cb_array* a, int versioned, int32_t dev_type, int32_t dev_id,
                               int copied) {
  size_t head = versioned ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
  head = (head + 7) & ~(size_t)7;
  char* mem = malloc(head + 2 * (size_t)(a->ndim ? a->ndim : 1) * sizeof(int64_t));
  if (mem == NULL) return PyErr_NoMemory();
  int64_t* dims = (int64_t*)(mem + head);
  Py_INCREF((PyObject*)a);
  if (versioned) {
    DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)mem;
    m->version.major = DLPACK_MAJOR_VERSION;
    m->version.minor = DLPACK_MINOR_VERSION;
    m->manager_ctx = a;
    m->deleter = cb_dl_delete_versioned;
    m->flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0;
    cb_dl_fill(&m->dl_tensor, a, dev_type, dev_id, dims);
  } else {
    DLManagedTensor* m = (DLManagedTensor*)mem;
    m->manager_ctx = a;
    m->deleter = cb_dl_delete_legacy;
    cb_dl_fill(&m->dl_tensor, a, dev_type, dev_id, dims);
  }
  PyObject* capsule =
      PyCapsule_New(mem, versioned ? kVersioned : kLegacy, cb_dl_capsule_destructor);
  if (capsule == NULL) cb_dlpack_release(mem, versioned);
  return capsule;
}

static int cb_parse_pair(PyObject* obj, const char* what, long* x, long* y) {
  if (!PyTuple_Check(obj) || PyTuple_Size(obj) != 2) {
    PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints", what);
    return -1;
  }
  *x = PyLong_AsLong(PyTuple_GetItem(obj, 0));
  *y = PyLong_AsLong(PyTuple_GetItem(obj, 1));
  return PyErr_Occurred() ? -1 : 0;
}

PyObject* cb_dlpack_export(cb_array* self, PyObject* args, PyObject* kwds) {
  static char* kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO:__dlpack__", kwlist, &stream, &max_version,
                                   &dl_device, &copy))
    return NULL;
  int versioned = 0;
  if (max_version != Py_None) {
    long major, minor;
    if (cb_parse_pair(max_version, "max_version", &major, &minor) < 0) return NULL;
    versioned = major >= 1;
  }
  int want_copy = copy == Py_None ? 0 : PyObject_IsTrue(copy);
  if (want_copy < 0) return NULL;
  int32_t own_type, own_id, type, id;
  cb_array_dldevice(self, &own_type, &own_id);
  type = own_type;
  id = own_id;
  if (dl_device != Py_None) {
    long t, i;
    if (cb_parse_pair(dl_device, "dl_device", &t, &i) < 0) return NULL;
    type = (int32_t)t;
    id = (int32_t)i;
  }
  int to_host = type == kDLCPU;
  cb_array* src = self;
  Py_INCREF((PyObject*)src);
  if (type != own_type || id != own_id) {
    if (!to_host || id != 0) {
      PyErr_Format(PyExc_BufferError,
                   "cubridge.Array on DLPack device (%d, %d) cannot be exported to device "
                   "(%d, %d)",
                   (int)own_type, (int)own_id, (int)type, (int)id);
      goto fail;
    }
    if (!cb_array_host_accessible(self)) {
      if (copy == Py_False || !want_copy) {
        PyErr_SetString(PyExc_BufferError,
                        "cubridge.Array in device memory is not host-accessible; export to the "
                        "CPU needs copy=True");
        goto fail;
      }
      Py_DECREF((PyObject*)src);
      src = cb_array_copy(self, CUBRIDGE_MEMORY_PINNED);
      if (src == NULL) return NULL;
    }
  }
  if (want_copy && src == self) {
    Py_DECREF((PyObject*)src);
    src = cb_array_copy(self, self->kind);
    if (src == NULL) return NULL;
  }
  /* Stream semantics: make our writes visible to the consumer's stream. */
  uintptr_t consumer = 0;
  int skip_sync = 0;
  if (stream != Py_None) {
    long long s = PyLong_AsLongLong(stream);
    if (s == -1 && PyErr_Occurred()) goto fail;
    if (s == 0 && !to_host) {
      PyErr_SetString(PyExc_ValueError, "__dlpack__: stream 0 is ambiguous and disallowed");
      goto fail;
    }
    skip_sync = s == -1;
    consumer = s > 0 ? (uintptr_t)s : 0;
  }
  /* Pinned memory is read by the host; managed memory imported with no stream
   * (NumPy) may be too: then all pending work must be finished. */
  int host_reader = to_host || type == kDLCUDAHost || (type == kDLCUDAManaged && stream == Py_None);
  if (!skip_sync && cb_array_settle(src, host_reader, consumer) < 0) goto fail;
  PyObject* capsule = cb_dl_capsule(src, versioned, type, to_host ? 0 : id, src != self);
  Py_DECREF((PyObject*)src);
  return capsule;
fail:
  Py_XDECREF((PyObject*)src);
  return NULL;
}
