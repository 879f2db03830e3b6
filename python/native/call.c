/* One op call. */
#include "call.h"

#include <string.h>

#include "array.h"
#include "backend.h"
#include "checks.h"
#include "dlpack.h"
#include "errors.h"
#include "import.h"
#include "result.h"
#include "stream.h"

/* Runs the call on `handle` (of `device`, for the default-stream handles) and
 * asks whether that stream records a graph. */
static int cb_call_use_stream(cb_call* c, uintptr_t handle, int device) {
  cubridge_stream stream;
  if (cb_stream_from_handle(c->st, handle, device, &stream) < 0) return -1;
  cb_stream_release(c->stream);
  c->stream_handle = handle;
  c->stream = stream;
  c->capturing = 0;
  Py_CLEAR(c->recording);
  /* The default streams (0, legacy 1) cannot record: no query for them. */
  if (handle <= 1 || !cb_on_cuda(c->st)) return 0;
  cubridge_status status = cubridge_stream_is_capturing(stream, &c->capturing);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(c->st, status);
    return -1;
  }
  if (c->capturing && c->st->recording != NULL && c->st->recording_stream == handle)
    c->recording = Py_NewRef(c->st->recording); /* kept should the capture end meanwhile */
  return 0;
}

int cb_call_begin(cb_call* c, cb_state* st, PyObject* stream_obj, int may_follow) {
  c->st = st;
  c->count = 0;
  c->stream = NULL;
  c->result = NULL;
  c->capturing = 0;
  c->recording = NULL;
  c->follow = may_follow && (stream_obj == NULL || stream_obj == Py_None);
  uintptr_t handle;
  if (cb_stream_handle(st, stream_obj, &handle) < 0) return -1;
  if (cb_call_use_stream(c, handle, -1) < 0) {
    cb_stream_release(c->stream);
    c->stream = NULL;
    return -1;
  }
  return 0;
}

/* Whether one of the call's first `count` arrays names `producer`. */
static int cb_call_saw_producer(const cb_call* c, uintptr_t producer, int count) {
  for (int i = 0; i < count; i++) {
    if (c->args[i].producer_stream == producer) return 1;
  }
  return 0;
}

cb_view* cb_call_arg(cb_call* c, PyObject* obj, const char* name, int writable) {
  cb_view* v = &c->args[c->count];
  uintptr_t consumer = c->capturing ? CB_STREAM_UNORDERED : c->stream_handle;
  if (cb_import(c->st, obj, name, writable, consumer, v) < 0) return NULL;
  c->count++;
  /* One event orders the op after a producer's stream, however many of the
   * call's arrays it wrote. */
  uintptr_t producer = v->producer_stream;
  int home = cb_home_device(v->memory, v->device);
  if (producer != 0 && c->follow && c->count == 1) {
    /* No stream given: the op runs where its first array was produced, as
     * torch's own ops run on its current stream; nothing to order. */
    if (cb_call_use_stream(c, producer, home) < 0) return NULL;
    v->producer_stream = 0;
  } else if (producer != 0 && !cb_call_saw_producer(c, producer, c->count - 1) &&
             cb_stream_order(c->st, producer, c->stream_handle, home) < 0) {
    return NULL;
  }
  if (writable && v->array != NULL && !c->capturing &&
      cb_array_after_uses(c->st, (cb_array*)v->array, c->stream_handle, c->stream) < 0)
    return NULL;
  if (c->recording != NULL && PyList_Append(c->recording, obj) < 0) return NULL;
  return v;
}

cb_view* cb_call_out(cb_call* c, PyObject* out_obj, const cb_view* proto, int dtype) {
  if (out_obj == Py_None) {
    c->result = cb_new_result(c->st, proto, dtype, c->stream_handle, c->stream, !c->capturing);
    if (c->result == NULL) return NULL;
  } else {
    c->result = Py_NewRef(out_obj);
  }
  cb_view* out = cb_call_arg(c, c->result, "out", 1);
  if (out == NULL) return NULL;
  if (out->dtype != dtype) {
    PyErr_Format(PyExc_TypeError, "out has dtype %s but the result has dtype %s",
                 cb_dtype(c->st, out->dtype)->name, cb_dtype(c->st, dtype)->name);
    return NULL;
  }
  if (cb_same_shape(proto, out) < 0) return NULL;
  return out;
}

int cb_call_copy(cb_call* c, cb_view* dst, const cb_view* src) {
  if (dst->data == src->data) return 0;
  if (cb_check_overlap(src, dst) < 0) return -1;
  cubridge_status status;
  void* to = dst->data;
  const void* from = src->data;
  size_t bytes = src->nbytes;
  cubridge_stream stream = c->stream;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_memcpy(to, from, bytes, stream);
  Py_END_ALLOW_THREADS;
  if (status != CUBRIDGE_OK) {
    cb_raise_status(c->st, status);
    return -1;
  }
  return 0;
}

static void cb_call_release(cb_call* c) {
  for (int i = 0; i < c->count; i++) cb_view_release(&c->args[i]);
  c->count = 0;
  cb_stream_release(c->stream);
  c->stream = NULL;
  Py_CLEAR(c->recording);
}

void cb_call_assume_device(cb_call* c) {
  if (c->count == 0 || !cb_on_cuda(c->st)) return;
  int device = c->args[0].device;
  for (int i = 0; i < c->count; i++) {
    const cb_view* v = &c->args[i];
    if ((v->memory != CUBRIDGE_MEMORY_DEVICE && v->memory != CUBRIDGE_MEMORY_MANAGED) ||
        v->device != device || device < 0)
      return; /* host memory, or two devices: the library looks and says */
  }
  (void)cubridge_assume_device(device);
}

/* Orders each foreign producer's stream after the op (an event on the op's
 * stream, waited for there): its next kernels see what the op wrote, and its
 * caching allocator reuses the memory only after the op. Should that fail, the
 * op's stream is waited for instead: the op itself succeeded. */
static void cb_call_hand_back(cb_call* c) {
  for (int i = 0; i < c->count; i++) {
    const cb_view* v = &c->args[i];
    uintptr_t producer = v->producer_stream;
    if (producer == 0 || cb_call_saw_producer(c, producer, i)) continue;
    int home = cb_home_device(v->memory, v->device);
    if (cb_stream_hand_back(c->st, c->stream_handle, producer, home) < 0) {
      PyErr_Clear();
      (void)cubridge_stream_synchronize(c->stream);
      return;
    }
  }
}

PyObject* cb_call_end(cb_call* c, cubridge_status status, cb_view* written, PyObject* value) {
  if (status == CUBRIDGE_OK && !c->capturing) {
    for (int i = 0; i < c->count; i++) {
      cb_view* v = &c->args[i];
      if (v->array != NULL)
        cb_array_used(c->st, (cb_array*)v->array, c->stream_handle, c->stream, v == written);
    }
    cb_call_hand_back(c);
  }
  /* The message first: releasing the call's stream is a cubridge call, and the
   * library's message lasts only until the next one. */
  if (status != CUBRIDGE_OK) cb_raise_status(c->st, status);
  cb_call_release(c);
  if (status != CUBRIDGE_OK) {
    Py_CLEAR(c->result);
    Py_XDECREF(value);
    return NULL;
  }
  if (value != NULL) {
    Py_CLEAR(c->result);
    return value;
  }
  return c->result;
}

PyObject* cb_call_fail(cb_call* c) {
  cb_call_release(c);
  Py_CLEAR(c->result);
  return NULL;
}

int cb_real(PyObject* obj, const char* name, double* v) {
  if (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyObject_HasAttrString(obj, "__float__")) {
    cb_type_error(name, "a real number", obj);
    return -1;
  }
  *v = PyFloat_AsDouble(obj);
  if (*v != -1.0 || !PyErr_Occurred()) return 0;
  if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "%s is out of float64's range", name);
  }
  return -1;
}

int cb_int_scalar_exact(cb_state* st, PyObject* obj, const char* fn, const char* name, int dtype) {
  if (st->dtypes[dtype].dl_code != kDLInt || PyFloat_Check(obj) || !PyIndex_Check(obj)) return 0;
  PyObject* i = PyNumber_Index(obj);
  if (i == NULL) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    Py_DECREF(i);
    return -1;
  }
  /* 2^63 is a double, not an int64: compare below it. */
  const double d = (double)v;
  const int exact = !overflow && d < 9223372036854775808.0 && (long long)d == v;
  if (!exact) {
    PyErr_Format(st->errors[CUBRIDGE_ERR_INVALID_ARGUMENT],
                 overflow ? "%s: argument '%s' = %S is outside int64's range (dtype %s)"
                          : "%s: argument '%s' = %S is not exactly representable as a float64, "
                            "which carries scalars to the library (dtype %s; integers up to "
                            "2**53 are)",
                 fn, name, i, st->dtypes[dtype].name);
  }
  Py_DECREF(i);
  return exact ? 0 : -1;
}
