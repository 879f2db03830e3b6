/* cubridge.Array memory: allocation from the library's pool, copies, and the
 * ordering of work on it by events (never a device-wide synchronisation). */
#include "array.h"

#include <string.h>

#include "backend.h"
#include "dlpack.h"
#include "errors.h"
#include "parked.h"
#include "stream.h"

/* Host blocks up to this size are allocated with the GIL held (CPU backend). */
#define CB_HOLD_GIL_MAX_BYTES (1 << 20)

int cb_array_host_accessible(cb_state* st, const cb_array* self) {
  return !cb_on_cuda(st) || self->kind != CUBRIDGE_MEMORY_DEVICE;
}

/* Records the Array's event on `stream` (handle `handle`) so that it completes
 * after all work queued there so far, and after every use it covered before
 * (a use on another stream is chained: this stream waits for it first). */
static int cb_array_mark(cb_state* st, cb_array* self, uintptr_t handle, cubridge_stream stream) {
  if (cb_array_after_uses(st, self, handle, stream) < 0) return -1;
  cubridge_status status = CUBRIDGE_OK;
  if (self->event == NULL) status = cubridge_event_create(&self->event);
  if (status == CUBRIDGE_OK) status = cubridge_event_record(self->event, stream);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    return -1;
  }
  self->event_live = 1;
  self->event_stream = handle;
  return 0;
}

int cb_array_flush(cb_state* st, cb_array* self) {
  uintptr_t handle = self->lazy_stream;
  if (handle == 0) return 0;
  cubridge_stream s = NULL;
  cubridge_status status = cubridge_stream_lookup(handle, &s);
  if (status == CUBRIDGE_OK && s == NULL) { /* closed: its work has finished */
    self->lazy_stream = 0;
    if (self->pending && self->write_stream == handle) self->pending = 0; /* no event covers it */
    return 0;
  }
  if (status == CUBRIDGE_OK) {
    self->lazy_stream = 0; /* before cb_array_mark, which records the event there */
    int rc = cb_array_mark(st, self, handle, s);
    cubridge_stream_destroy(s);
    return rc;
  }
  cb_raise_status(st, status);
  return -1;
}

int cb_array_after_uses(cb_state* st, cb_array* self, uintptr_t handle, cubridge_stream stream) {
  if (!cb_on_cuda(st)) return 0;
  if (handle != 0 && self->lazy_stream == handle) return 0; /* ordered when it was used */
  if (cb_array_flush(st, self) < 0) return -1;
  if (!self->event_live || cb_norm_stream(self->event_stream) == cb_norm_stream(handle)) return 0;
  cubridge_status status = cubridge_stream_wait_event(stream, self->event);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    return -1;
  }
  return 0;
}

/* A use on a stream of this library's: the event is left as it is (recorded
 * there later, if ever needed) once this stream is ordered after the uses the
 * event covers. -1 with an error. */
static int cb_array_use_lazily(cb_state* st, cb_array* self, uintptr_t handle,
                               cubridge_stream stream) {
  if (cb_array_after_uses(st, self, handle, stream) < 0) return -1;
  self->lazy_stream = handle;
  return 0;
}

static int cb_stream_is_ours(cubridge_stream stream) {
  int ours = 0;
  return cubridge_stream_is_ours(stream, &ours) == CUBRIDGE_OK && ours;
}

void cb_array_used(cb_state* st, cb_array* self, uintptr_t handle, cubridge_stream stream,
                   int written) {
  if (!cb_on_cuda(st)) return;
  /* Work on the default stream is ordered before the free (which runs there);
   * work on a stream of this library's is ordered before the free there or,
   * once needed, by the event, like work on any other stream. */
  int rc = 0;
  if (handle == 0) {
    self->default_use = 1;
  } else {
    rc = cb_stream_is_ours(stream) ? cb_array_use_lazily(st, self, handle, stream)
                                   : cb_array_mark(st, self, handle, stream);
  }
  if (rc < 0) {
    /* The call itself succeeded: wait for its stream rather than fail it. */
    PyErr_Clear();
    if (cubridge_stream_synchronize(stream) == CUBRIDGE_OK) {
      if (written) self->pending = 0;
      return;
    }
  }
  if (written) {
    self->pending = 1;
    self->write_stream = handle;
  }
}

int cb_array_settle(cb_state* st, cb_array* self, int for_host, uintptr_t consumer) {
  if (!self->pending || !cb_on_cuda(st) || consumer == CB_STREAM_UNORDERED) return 0;
  if (!for_host && cb_norm_stream(self->write_stream) == cb_norm_stream(consumer)) return 0;
  if (cb_array_flush(st, self) < 0) return -1;
  if (!self->pending) return 0; /* written on a stream closed since */
  /* A write on another stream was marked then; one on the default stream is
   * marked now (the default stream always exists): for device memory, on the
   * default stream of the Array's device, whichever device is current. */
  int home = cb_home_device(self->kind, self->device);
  if (self->write_stream == 0) {
    cubridge_stream s;
    if (cb_stream_from_handle(st, 0, home, &s) < 0) return -1;
    int rc = cb_array_mark(st, self, 0, s);
    cb_stream_release(s);
    if (rc < 0) return -1;
  }
  cubridge_status status;
  cubridge_event event = self->event;
  if (for_host) {
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_event_synchronize(event);
    Py_END_ALLOW_THREADS;
    if (status == CUBRIDGE_OK) self->pending = 0;
  } else {
    cubridge_stream s;
    if (cb_stream_from_handle(st, consumer, home, &s) < 0) return -1;
    status = cubridge_stream_wait_event(s, event);
    return cb_stream_release_after(st, s, status);
  }
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    return -1;
  }
  return 0;
}

void cb_array_dldevice(cb_state* st, const cb_array* self, int32_t* type, int32_t* id) {
  *id = self->device;
  if (!cb_on_cuda(st)) {
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

int cb_parse_memory(const cb_state* st, PyObject* obj) {
  if (PyUnicode_Check(obj)) {
    for (int k = CUBRIDGE_MEMORY_DEVICE; k <= CUBRIDGE_MEMORY_PINNED; k++) {
      int eq = PyUnicode_Compare(obj, st->memory_names[k]);
      if (eq == 0) return k;
      if (eq == -1 && PyErr_Occurred()) return -1;
    }
  }
  PyErr_Format(PyExc_ValueError, "memory must be 'device', 'managed' or 'pinned', got %R", obj);
  return -1;
}

int cb_parse_device(cb_state* st, PyObject* obj) {
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
  cubridge_status status = cubridge_check_device((int)device);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    return -2;
  }
  return (int)device;
}

cb_array* cb_array_new(cb_state* st, int ndim, const int64_t* shape, int dtype, int kind,
                       int device, uintptr_t stream_handle, cubridge_stream stream,
                       int may_unpark) {
  const cb_dtype_info* d = cb_dtype(st, dtype);
  if (d == NULL) {
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
    if (shape[i] != 0 && n > (SIZE_MAX / 2 / d->size) / (size_t)shape[i]) {
      PyErr_SetString(PyExc_ValueError, "shape: the array would be too large");
      return NULL;
    }
    n *= (size_t)shape[i];
  }
  if (device < 0) { /* where the allocation lands: the stream's device, else the caller's */
    cubridge_status status =
        stream != NULL ? cubridge_stream_device(stream, &device) : cubridge_get_device(&device);
    if (status != CUBRIDGE_OK) return (cb_array*)cb_raise_status(st, status);
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(st->array_type, Py_tp_alloc);
  cb_array* self = (cb_array*)alloc(st->array_type, 0);
  if (self == NULL) return NULL;
  /* tp_alloc zeroes the struct: no pointer, no event, nothing pending. */
  self->kind = kind;
  self->dtype = dtype;
  self->ndim = ndim;
  self->device = device;
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
  cubridge_status status = CUBRIDGE_OK;
  void* ptr = NULL;
  size_t nbytes = self->nbytes;
  /* Streams of this library's have their own block cache. A NULL stream is
   * the current device's default stream, the block's only with one device. */
  if (may_unpark && kind == CUBRIDGE_MEMORY_DEVICE && (stream != NULL || st->device_count == 1) &&
      cb_on_cuda(st) && st->parked_count > 0 && !cb_stream_is_ours(stream) &&
      cb_unpark(st, nbytes, device, stream, &ptr, &self->event)) {
    /* `stream` waited for the event, which covers the block's earlier uses:
     * it stands for the allocation there, as a record would (one CUDA call
     * less; the op's own use records it next). */
    self->ptr = ptr;
    self->event_live = 1;
    self->event_stream = stream_handle;
    self->pending = 1;
    self->write_stream = stream_handle;
    return self;
  }
  /* Pool hits take well under a microsecond; a miss (cudaMallocAsync growing
   * the pool, pinned memory, a large host block) may take long: the GIL is
   * released, except for small blocks on the CPU backend (a cache hit or a
   * malloc, cheaper than releasing the GIL). */
  for (int attempt = 0; attempt < 2; attempt++) {
    if (nbytes > CB_HOLD_GIL_MAX_BYTES || cb_on_cuda(st)) {
      Py_BEGIN_ALLOW_THREADS;
      status = cubridge_malloc_async(kind, nbytes, device, stream, &ptr);
      Py_END_ALLOW_THREADS;
    } else {
      status = cubridge_malloc_async(kind, nbytes, device, stream, &ptr);
    }
    if (status != CUBRIDGE_ERR_OUT_OF_MEMORY || cb_parked_bytes(st, device) == 0) break;
    cb_park_release(st, device); /* its parked blocks go back to the pool before giving up */
  }
  if (status != CUBRIDGE_OK) {
    Py_DECREF((PyObject*)self);
    return (cb_array*)cb_raise_status(st, status);
  }
  self->ptr = ptr;
  /* Usable at once on `stream`, elsewhere once ordered after it. */
  cb_array_used(st, self, stream_handle, stream, 1);
  return self;
}

/* Frees the Array's block on the stream of this library's it was last used
 * on, where the block cache can hand it to that stream's next allocation:
 * earlier uses elsewhere were ordered before that stream's (cb_array_used).
 * False when that stream is gone or there is none. */
static int cb_array_free_on_own_stream(cb_array* self) {
  cubridge_stream s = NULL;
  if (self->lazy_stream == 0 || cubridge_stream_lookup(self->lazy_stream, &s) != CUBRIDGE_OK ||
      s == NULL)
    return 0;
  (void)cubridge_free_async(self->kind, self->ptr, s);
  cubridge_stream_destroy(s);
  self->ptr = NULL;
  return 1;
}

/* Whether the event covers every use of the Array's device memory: none on
 * the default stream since its last record there, none by an export's
 * consumer (whose later work on its own stream the event does not see). */
static int cb_array_event_covers_all(const cb_array* self) {
  return self->kind == CUBRIDGE_MEMORY_DEVICE && self->event_live && !self->default_use &&
         !self->exported;
}

/* While a cubridge.Stream records, a free would be queued into the recording
 * (which CUDA refuses) or on the default stream (which ends the recording):
 * the memory waits, in a copy of the Array's fields, for the recording's end
 * (cb_array_free_deferred). 0 when it cannot wait (no recording, no memory). */
static int cb_array_defer_free(cb_state* st, cb_array* self) {
  if (st == NULL || st->recording == NULL || self->ptr == NULL) return 0;
  if (st->deferred_count == st->deferred_cap) {
    int cap = st->deferred_cap ? 2 * st->deferred_cap : 16;
    cb_array** grown = PyMem_Realloc(st->deferred, sizeof(cb_array*) * (size_t)cap);
    if (grown == NULL) return 0;
    st->deferred = grown;
    st->deferred_cap = cap;
  }
  cb_array* copy = PyMem_Malloc(sizeof *copy);
  if (copy == NULL) return 0;
  *copy = *self;
  copy->shape = copy->strides = NULL; /* the Array's own, freed with it */
  st->deferred[st->deferred_count++] = copy;
  self->ptr = NULL;
  self->event = NULL;
  return 1;
}

void cb_array_free_deferred(cb_state* st) {
  for (int i = 0; i < st->deferred_count; i++) {
    cb_array_free_memory(st, st->deferred[i]);
    PyMem_Free(st->deferred[i]);
  }
  st->deferred_count = 0;
}

void cb_array_free_memory(cb_state* st, cb_array* self) {
  if (cb_array_defer_free(st, self)) return;
  if (self->ptr != NULL && !cb_array_free_on_own_stream(self)) {
    /* Parked behind the event when it covers every use. Else the block goes
     * back to the pool on the default stream of its device (whichever device
     * is current), where uses on the default stream come first, after the
     * event that covers those on other streams. Nothing can be raised from a
     * destructor: failures are lost. */
    int covered = self->event_live && self->event_stream != 0;
    if (st != NULL && cb_array_event_covers_all(self) &&
        cb_park(st, self->ptr, self->nbytes, self->device, self->event)) {
      self->event = NULL; /* the parked block's now */
    } else {
      cb_free_after(self->kind, self->ptr, self->device, covered ? self->event : NULL);
    }
    self->ptr = NULL;
  }
  if (self->event != NULL) {
    (void)cubridge_event_destroy(self->event);
    self->event = NULL;
  }
}

cb_array* cb_array_copy(cb_state* st, cb_array* self, int kind) {
  int64_t dims[CB_MAX_NDIM];
  for (int i = 0; i < self->ndim; i++) dims[i] = (int64_t)self->shape[i];
  cb_array* c = cb_array_new(st, self->ndim, dims, self->dtype, kind, self->device, 0, NULL, 0);
  if (c == NULL) return NULL;
  cubridge_status status = CUBRIDGE_OK;
  void *dst = c->ptr, *src = self->ptr;
  size_t bytes = self->nbytes;
  if (cb_array_settle(st, self, 0, 0) < 0) goto fail;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_memcpy(dst, src, bytes, NULL);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    goto fail;
  }
  /* The copy on the default stream may still be in flight: it reads self and
   * writes c there. */
  cb_array_used(st, self, 0, NULL, 0);
  cb_array_used(st, c, 0, NULL, 1);
  return c;
fail:
  Py_DECREF((PyObject*)c);
  return NULL;
}
