/* cubridge.Array memory: made by the runtime, copied, waited for. */
#include "array.h"

#include "backend.h"
#include "dlpack.h"
#include "dtypes.h"
#include "errors.h"
#include "module.h"

/* Host blocks up to this size are allocated with the GIL held (CPU backend). */
#define CB_HOLD_GIL_MAX_BYTES (1 << 20)

int cb_array_is(const cb_module* m, PyObject* obj) { return Py_IS_TYPE(obj, m->arrays.type); }

int cb_array_host_accessible(cb_module* m, const cb_array* self) {
  return !cb_on_cuda(m) || self->kind != CUBRIDGE_MEMORY_DEVICE;
}

int cb_array_host_wait(cb_module* m, cb_array* self, int access) {
  if (!cb_on_cuda(m)) return 0;
  cubridge_status status;
  cubridge_array rt = self->rt;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_array_sync(rt, access);
  Py_END_ALLOW_THREADS;
  return cb_check(m, status);
}

void cb_array_dldevice(cb_module* m, const cb_array* self, int32_t* type, int32_t* id) {
  *id = self->device;
  if (!cb_on_cuda(m)) {
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

int cb_parse_memory(const cb_module* m, PyObject* obj) {
  if (PyUnicode_Check(obj)) {
    for (int k = CUBRIDGE_MEMORY_DEVICE; k <= CUBRIDGE_MEMORY_PINNED; k++) {
      int eq = PyUnicode_Compare(obj, m->arrays.memory_names[k]);
      if (eq == 0) return k;
      if (eq == -1 && PyErr_Occurred()) return -1;
    }
  }
  PyErr_Format(PyExc_ValueError, "memory must be 'device', 'managed' or 'pinned', got %R", obj);
  return -1;
}

int cb_parse_device(cb_module* m, PyObject* obj) {
  if (obj == NULL || obj == Py_None) return -1;
  if (!PyLong_Check(obj) || PyBool_Check(obj)) {
    cb_type_error("device", "None or a device index (int)", obj);
    return -2;
  }
  int overflow = 0;
  long device = PyLong_AsLongAndOverflow(obj, &overflow);
  if (device == -1 && PyErr_Occurred()) return -2;
  if (overflow || device < 0 || device > INT32_MAX) {
    PyErr_Format(PyExc_ValueError, "device must be None or an index >= 0, got %S", obj);
    return -2;
  }
  return cb_check(m, cubridge_check_device((int)device)) < 0 ? -2 : (int)device;
}

cb_array* cb_array_new(cb_module* m, int ndim, const int64_t* shape, int dtype, int kind,
                       int device, cubridge_stream stream) {
  const cb_dtype_info* d = cb_dtype(m, dtype);
  if (d == NULL) {
    PyErr_Format(PyExc_TypeError, "dtype: unknown dtype code %d", dtype);
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
    if (shape[i] != 0 && n > (SIZE_MAX / 2 / d->size) / (size_t)shape[i]) {
      PyErr_SetString(PyExc_ValueError, "shape: the array would be too large");
      return NULL;
    }
    n *= (size_t)shape[i];
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(m->arrays.type, Py_tp_alloc);
  cb_array* self = (cb_array*)alloc(m->arrays.type, 0); /* zeroed: no memory yet */
  if (self == NULL) return NULL;
  self->dtype = dtype;
  self->ndim = ndim;
  self->n = n;
  self->nbytes = n * d->size;
  self->shape = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)(ndim ? ndim : 1));
  if (self->shape == NULL) {
    Py_DECREF((PyObject*)self);
    return (cb_array*)PyErr_NoMemory();
  }
  self->strides = self->shape + ndim;
  Py_ssize_t stride = (Py_ssize_t)d->size;
  for (int i = ndim - 1; i >= 0; i--) {
    self->shape[i] = (Py_ssize_t)shape[i];
    self->strides[i] = stride;
    stride *= (Py_ssize_t)shape[i];
  }
  /* Pool hits take well under a microsecond; a miss (the pool growing, pinned
   * memory, a large host block) may take long: the GIL is released, except for
   * small blocks on the CPU backend (a cache hit or a malloc, cheaper than
   * releasing the GIL). */
  cubridge_status status;
  cubridge_array rt = NULL;
  size_t nbytes = self->nbytes;
  if (nbytes > CB_HOLD_GIL_MAX_BYTES || cb_on_cuda(m)) {
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_array_create(kind, nbytes, device, stream, &rt);
    Py_END_ALLOW_THREADS;
  } else {
    status = cubridge_array_create(kind, nbytes, device, stream, &rt);
  }
  cubridge_array_info info = {sizeof info};
  if (status == CUBRIDGE_OK) status = cubridge_array_get_info(rt, &info);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(m, status);
    Py_DECREF((PyObject*)self);
    return NULL;
  }
  self->rt = rt;
  self->ptr = info.data;
  self->kind = info.kind;
  self->device = info.device;
  return self;
}

cb_array* cb_array_copy(cb_module* m, cb_array* self, int kind) {
  int64_t dims[CB_MAX_NDIM];
  for (int i = 0; i < self->ndim; i++) dims[i] = (int64_t)self->shape[i];
  cb_array* c = cb_array_new(m, self->ndim, dims, self->dtype, kind, self->device, NULL);
  if (c == NULL) return NULL;
  /* On the default stream, after the source's last write, before its next
   * uses elsewhere; the new Array was allocated there. */
  cubridge_array src = self->rt, dst = c->rt;
  void *to = c->ptr, *from = self->ptr;
  size_t bytes = self->nbytes;
  cubridge_status status = cubridge_array_acquire(src, NULL, CUBRIDGE_ACCESS_READ);
  if (status == CUBRIDGE_OK) {
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_memcpy(to, from, bytes, NULL);
    Py_END_ALLOW_THREADS;
  }
  if (status == CUBRIDGE_OK) status = cubridge_array_release(src, NULL, CUBRIDGE_ACCESS_READ);
  if (status == CUBRIDGE_OK) status = cubridge_array_release(dst, NULL, CUBRIDGE_ACCESS_WRITE);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(m, status);
    Py_DECREF((PyObject*)c);
    return NULL;
  }
  return c;
}
