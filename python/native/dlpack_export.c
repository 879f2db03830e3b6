/* Exporting cubridge.Array through DLPack, versioned (1.x) and legacy capsules. */
#include "dlpack_export.h"

#include <stdlib.h>

#include "array.h"
#include "dlpack.h"
#include "dtypes.h"
#include "errors.h"
#include "module.h"
#include "stream.h"

PyObject* cb_dlpack_device(cb_array* self, PyObject* unused) {
  (void)unused;
  cb_module* st = cb_module_of_type(Py_TYPE((PyObject*)self));
  if (st == NULL) return NULL;
  int32_t type, id;
  cb_array_dldevice(st, self, &type, &id);
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
  if (PyCapsule_IsValid(capsule, CB_DL_VERSIONED)) {
    cb_dl_delete(PyCapsule_GetPointer(capsule, CB_DL_VERSIONED), 1);
  } else if (PyCapsule_IsValid(capsule, CB_DL_LEGACY)) {
    cb_dl_delete(PyCapsule_GetPointer(capsule, CB_DL_LEGACY), 0);
  }
  PyErr_Restore(t, v, tb);
}

static void cb_dl_fill(const cb_module* st, DLTensor* t, cb_array* a, int32_t dev_type,
                       int32_t dev_id, int64_t* dims) {
  const cb_dtype_info* d = cb_dtype(st, a->dtype);
  t->data = a->ptr;
  t->device.device_type = dev_type;
  t->device.device_id = dev_id;
  t->ndim = a->ndim;
  t->dtype.code = d->dl_code;
  t->dtype.bits = (uint8_t)(d->size * 8);
  t->dtype.lanes = 1;
  t->shape = dims;
  t->strides = dims + a->ndim;
  t->byte_offset = 0;
  for (int i = 0; i < a->ndim; i++) {
    dims[i] = (int64_t)a->shape[i];
    dims[a->ndim + i] = (int64_t)a->strides[i] / (int64_t)d->size;
  }
}

static PyObject* cb_dl_capsule(const cb_module* st, cb_array* a, int versioned, int32_t dev_type,
                               int32_t dev_id, int copied) {
  if (cb_dtype(st, a->dtype)->dl_code == CB_DL_NONE) {
    PyErr_Format(PyExc_BufferError, "__dlpack__: DLPack has no type for dtype %s",
                 cb_dtype(st, a->dtype)->name);
    return NULL;
  }
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
    cb_dl_fill(st, &m->dl_tensor, a, dev_type, dev_id, dims);
  } else {
    DLManagedTensor* m = (DLManagedTensor*)mem;
    m->manager_ctx = a;
    m->deleter = cb_dl_delete_legacy;
    cb_dl_fill(st, &m->dl_tensor, a, dev_type, dev_id, dims);
  }
  PyObject* capsule =
      PyCapsule_New(mem, versioned ? CB_DL_VERSIONED : CB_DL_LEGACY, cb_dl_capsule_destructor);
  if (capsule == NULL) cb_dl_delete(mem, versioned);
  return capsule;
}

/* Orders the Array's pending write before its consumer: the host, or the
 * stream `consumer` (0: the default stream of the Array's device). */
static int cb_dl_settle(cb_module* st, cb_array* a, int host_reader, uintptr_t consumer) {
  if (host_reader) return cb_array_host_wait(st, a, CUBRIDGE_ACCESS_READ);
  cubridge_stream s;
  int home = a->kind == CUBRIDGE_MEMORY_DEVICE ? a->device : -1;
  if (cb_stream_wrap(st, consumer, home, &s) < 0) return -1;
  cubridge_status status = cubridge_array_acquire(a->rt, s, CUBRIDGE_ACCESS_READ);
  if (status != CUBRIDGE_OK) cb_raise_status(st, status); /* before the release clears it */
  cb_stream_release(s);
  return status == CUBRIDGE_OK ? 0 : -1;
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
  cb_module* st = cb_module_of_type(Py_TYPE((PyObject*)self));
  if (st == NULL) return NULL;
  int versioned = 0;
  if (max_version != Py_None) {
    long major, minor;
    if (cb_parse_pair(max_version, "max_version", &major, &minor) < 0) return NULL;
    versioned = major >= 1;
  }
  int want_copy = copy == Py_None ? 0 : PyObject_IsTrue(copy);
  if (want_copy < 0) return NULL;
  int32_t own_type, own_id, type, id;
  cb_array_dldevice(st, self, &own_type, &own_id);
  type = own_type;
  id = own_id;
  if (dl_device != Py_None) {
    long t, i;
    if (cb_parse_pair(dl_device, "dl_device", &t, &i) < 0) return NULL;
    if (t != (int32_t)t || i != (int32_t)i) {
      PyErr_Format(PyExc_ValueError, "dl_device (%ld, %ld) is no DLPack device", t, i);
      return NULL;
    }
    type = (int32_t)t;
    id = (int32_t)i;
  }
  int to_host = type == kDLCPU;
  cb_array* src = (cb_array*)Py_NewRef((PyObject*)self);
  if (type != own_type || id != own_id) {
    if (!to_host || id != 0) {
      PyErr_Format(PyExc_BufferError,
                   "cubridge.Array on DLPack device (%d, %d) cannot be exported to device "
                   "(%d, %d)",
                   (int)own_type, (int)own_id, (int)type, (int)id);
      goto fail;
    }
    if (!cb_array_host_accessible(st, self)) {
      if (copy != Py_None && !want_copy) { /* copy=None: copy when needed, as here */
        PyErr_SetString(PyExc_BufferError,
                        "cubridge.Array in device memory is not host-accessible; export to the "
                        "CPU needs a copy (copy=True or None), not copy=False");
        goto fail;
      }
      Py_DECREF((PyObject*)src);
      src = cb_array_copy(st, self, CUBRIDGE_MEMORY_PINNED);
      if (src == NULL) return NULL;
    }
  }
  if (want_copy && src == self) {
    Py_DECREF((PyObject*)src);
    src = cb_array_copy(st, self, self->kind);
    if (src == NULL) return NULL;
  }
  /* Stream semantics: make our writes visible to the consumer's stream. */
  uintptr_t consumer = 0;
  int skip_sync = 0;
  if (stream != Py_None) {
    long long s = PyLong_AsLongLong(stream);
    if (s == -1 && PyErr_Occurred()) goto fail;
    if (s < -1) {
      PyErr_Format(PyExc_ValueError, "__dlpack__: stream %lld is no stream (None, -1 or >= 0)", s);
      goto fail;
    }
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
  if (!skip_sync && cb_dl_settle(st, src, host_reader, consumer) < 0) goto fail;
  if (cb_check(st, cubridge_array_export(src->rt, NULL)) < 0) goto fail;
  PyObject* capsule = cb_dl_capsule(st, src, versioned, type, to_host ? 0 : id, src != self);
  Py_DECREF((PyObject*)src);
  return capsule;
fail:
  Py_XDECREF((PyObject*)src);
  return NULL;
}
