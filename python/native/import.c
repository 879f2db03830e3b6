/* Which protocol reads an argument, in the order that keeps device memory on
 * the device: cubridge.Array, __cuda_array_interface__, the buffer protocol
 * (host memory only), __dlpack__. */
#include "import.h"

#include "array.h"
#include "backend.h"
#include "buffer_import.h"
#include "cai_import.h"
#include "cupy_import.h"
#include "dlpack.h"
#include "dlpack_import.h"
#include "errors.h"
#include "known_types.h"
#include "numpy_import.h"
#include "stream.h"
#include "torch_import.h"

static void cb_from_array(PyObject* obj, cb_view* v) {
  const cb_array* a = (const cb_array*)obj;
  v->array = Py_NewRef(obj);
  v->data = a->ptr;
  v->dtype = a->dtype;
  v->ndim = a->ndim;
  for (int i = 0; i < a->ndim; i++) v->shape[i] = (int64_t)a->shape[i];
  v->memory = a->kind;
  v->device = a->device;
}

/* obj.__cuda_array_interface__, or NULL (no exception) when it has none: a
 * failing property (torch's CPU tensors, our own Arrays on the CPU backend)
 * counts as none. Types without it are not asked (an AttributeError each). */
static PyObject* cb_get_cai(const cb_state* st, PyObject* obj, int where) {
  if (where == CB_CAI_NONE) return NULL;
  if (where == CB_CAI_DICT) {
    PyObject* dict = PyObject_GenericGetDict(obj, NULL);
    PyObject* cai = dict ? PyDict_GetItemWithError(dict, st->s_cai) : NULL; /* borrowed */
    Py_XINCREF(cai);
    Py_XDECREF(dict);
    PyErr_Clear();
    return cai;
  }
  PyObject* cai = PyObject_GetAttr(obj, st->s_cai);
  if (cai == NULL) PyErr_Clear();
  return cai;
}

/* Names a foreign producer's stream (0 or 1: the legacy default stream) that
 * the op's stream must be ordered after, and back (call.c). */
static void cb_after_producer(uintptr_t producer, uintptr_t stream, cb_view* v) {
  if (stream != CB_STREAM_UNORDERED && cb_norm_stream(producer) != cb_norm_stream(stream))
    v->producer_stream = cb_norm_stream(producer);
}

/* A torch.Tensor argument: 0, -1 with an exception, or CB_TORCH_GENERIC. */
static int cb_torch_arg(cb_state* st, PyObject* obj, int writable, uintptr_t stream, int on_cuda,
                        cb_view* v) {
  int rc = cb_import_torch(st, obj, v);
  if (rc != 0) return rc;
  if (cb_view_validate(st, v, writable) < 0) return -1;
  if (v->memory == CUBRIDGE_MEMORY_DEVICE && !on_cuda) {
    PyErr_Format(PyExc_ValueError,
                 "%s is CUDA device memory (a torch CUDA tensor), which the CPU backend "
                 "cannot use",
                 v->name);
    return -1;
  }
  if (v->memory != CUBRIDGE_MEMORY_DEVICE || stream == CB_STREAM_UNORDERED) return 0;
  /* torch's kernels that wrote the tensor ran on its current stream. */
  uintptr_t producer;
  if (cb_torch_current_stream(st, v->device, &producer) < 0) return -1;
  cb_after_producer(producer, stream, v);
  return 0;
}

/* A cupy.ndarray argument: 0, -1 with an exception, or CB_CUPY_GENERIC. */
static int cb_cupy_arg(cb_state* st, PyObject* obj, int writable, uintptr_t stream, int on_cuda,
                       cb_view* v) {
  int rc = cb_import_cupy(st, obj, v);
  if (rc != 0) return rc;
  if (on_cuda) cb_view_ask_memory(v); /* managed, or another library's pinned memory */
  if (cb_view_validate(st, v, writable) < 0) return -1;
  if (!on_cuda) {
    PyErr_Format(PyExc_ValueError,
                 "%s is CUDA device memory (a CuPy array), which the CPU backend cannot use",
                 v->name);
    return -1;
  }
  if (stream == CB_STREAM_UNORDERED) return 0;
  /* CuPy's kernels that wrote the array ran on its current stream. */
  uintptr_t producer;
  if (cb_cupy_current_stream(st, &producer) < 0) return -1;
  cb_after_producer(producer, stream, v);
  return 0;
}

static int cb_import_any(cb_state* st, PyObject* obj, int writable, uintptr_t stream, cb_view* v) {
  if (cb_is_array(st, obj)) {
    cb_from_array(obj, v);
    if (cb_view_validate(st, v, writable) < 0) return -1;
    return cb_array_settle(st, (cb_array*)obj, 0, stream);
  }
  int on_cuda = cb_on_cuda(st);
  const cb_type_hint* hint = cb_type_hint_of(st, Py_TYPE(obj));
  int cai_where = hint->cai;
  int rc = 0; /* a known type's reader: 0, -1, or CB_*_GENERIC for the generic path */
  switch (hint->known) {
    case CB_KNOWN_NUMPY: /* host memory, always */
      if (cb_import_numpy(st, obj, v) < 0) return -1;
      return cb_view_validate(st, v, writable);
    case CB_KNOWN_MASKED: /* its buffer is the data without the mask */
      PyErr_Format(PyExc_TypeError,
                   "%s is a numpy.ma.MaskedArray, whose mask cubridge would ignore: pass "
                   "%s.filled(value) or %s.data",
                   v->name, v->name, v->name);
      return -1;
    case CB_KNOWN_TORCH:
      rc = cb_torch_arg(st, obj, writable, stream, on_cuda, v);
      if (rc != CB_TORCH_GENERIC) return rc;
      break;
    case CB_KNOWN_CUPY:
      rc = cb_cupy_arg(st, obj, writable, stream, on_cuda, v);
      if (rc != CB_CUPY_GENERIC) return rc;
      break;
    default:
      break;
  }
  if (rc != 0) { /* what the reader filled in is dropped */
    cb_view_release(v);
    cb_view_init(v, v->name);
  }
  int has_buffer = PyObject_CheckBuffer(obj);
  /* Device protocols first: CuPy, torch and JAX arrays also expose a buffer
   * protocol that fails for device memory. */
  PyObject* cai = on_cuda || !has_buffer ? cb_get_cai(st, obj, cai_where) : NULL;
  int32_t dev_type = kDLCPU, dev_id = 0;
  int queried = 0;
  if (cai != NULL) {
    uintptr_t producer = 0;
    int rc = cb_import_cai(st, obj, cai, v, &producer);
    Py_DECREF(cai);
    if (rc == CB_TRY_DLPACK) {
      cb_view_release(v);
      cb_view_init(v, v->name);
    } else {
      if (rc < 0 || cb_view_validate(st, v, writable) < 0) return -1;
      /* CUDA memory (CuPy, numba) with CUBRIDGE_BACKEND=cpu: parsed (so bad
       * interfaces get their own errors), then refused: CPU threads must not
       * dereference device pointers. */
      if (!on_cuda) {
        PyErr_Format(PyExc_ValueError,
                     "%s is CUDA device memory (__cuda_array_interface__), which the CPU "
                     "backend cannot use",
                     v->name);
        return -1;
      }
      /* v3: the producer's stream must be done with the data before we use it. */
      if (producer != 0) cb_after_producer(producer, stream, v);
      return 0;
    }
  } else if (has_buffer) {
    /* NumPy also has __dlpack_device__; a buffer of device memory (a
     * producer that says so) is read through DLPack. Errors count as "host". */
    if (cb_dlpack_query_device(st, obj, &dev_type, &dev_id) < 0) {
      PyErr_Clear();
      dev_type = kDLCPU;
    }
    if (dev_type == kDLCPU) {
      if (cb_import_buffer(st, obj, v) < 0) return -1;
      return cb_view_validate(st, v, writable);
    }
    queried = 1;
  }
  if (!PyObject_HasAttr(obj, st->s_dlpack)) {
    /* Its class may have been given __cuda_array_interface__ since first seen. */
    if (cai_where != CB_CAI_TYPE && PyObject_HasAttr(obj, st->s_cai) &&
        cb_type_hint_renew(st, Py_TYPE(obj))->cai == CB_CAI_TYPE)
      return cb_import_any(st, obj, writable, stream, v);
    cb_type_error(v->name,
                  "an array (buffer protocol, __dlpack__ or __cuda_array_interface__, e.g. a "
                  "NumPy array or cubridge.Array)",
                  obj);
    return -1;
  }
  if (!queried && cb_dlpack_query_device(st, obj, &dev_type, &dev_id) < 0) return -1;
  if (cb_import_dlpack(st, obj, dev_type, stream, v) < 0 || cb_view_validate(st, v, writable) < 0)
    return -1;
  if (v->memory == CUBRIDGE_MEMORY_DEVICE && !on_cuda) {
    PyErr_Format(PyExc_ValueError,
                 "%s is CUDA device memory (DLPack kDLCUDA), which the CPU backend cannot use",
                 v->name);
    return -1;
  }
  return 0;
}

int cb_import(cb_state* st, PyObject* obj, const char* name, int writable, uintptr_t stream,
              cb_view* v) {
  cb_view_init(v, name);
  if (cb_import_any(st, obj, writable, stream, v) < 0) {
    cb_view_release(v);
    return -1;
  }
  return 0;
}
