/* Stream arguments and handshakes. */
#include "stream.h"

#include "backend.h"
#include "errors.h"
#include "known_types.h"

static int cb_handle_from_int(PyObject* obj, uintptr_t* handle) {
  unsigned long long v = PyLong_AsUnsignedLongLong(obj);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_SetString(PyExc_ValueError, "stream must be a non-negative cudaStream_t handle");
    return -1;
  }
  *handle = (uintptr_t)v;
  return 0;
}

int cb_stream_handle(cb_state* st, PyObject* obj, uintptr_t* handle) {
  *handle = 0;
  if (obj == NULL || obj == Py_None) return 0;
  if (PyLong_Check(obj)) return cb_handle_from_int(obj, handle);
  int by = cb_type_hint_of(st, Py_TYPE(obj))->stream;
  if (by == CB_STREAM_BY_INSTANCE) { /* set on the instance, if anywhere */
    by = PyObject_HasAttr(obj, st->s_cuda_stream_proto) ? CB_STREAM_BY_PROTOCOL
         : PyObject_HasAttr(obj, st->s_ptr)             ? CB_STREAM_BY_PTR
         : PyObject_HasAttr(obj, st->s_cuda_stream)     ? CB_STREAM_BY_CUDA_STREAM
                                                        : CB_STREAM_BY_INSTANCE;
  }
  PyObject* v = NULL;
  if (by == CB_STREAM_BY_PROTOCOL) {
    /* CUDA stream protocol: __cuda_stream__() -> (version, handle). */
    PyObject* t = PyObject_CallMethodObjArgs(obj, st->s_cuda_stream_proto, NULL);
    if (t == NULL) return -1;
    if (PyTuple_Check(t) && PyTuple_Size(t) == 2) v = Py_NewRef(PyTuple_GetItem(t, 1));
    Py_DECREF(t);
  } else if (by == CB_STREAM_BY_PTR) { /* CuPy */
    v = PyObject_GetAttr(obj, st->s_ptr);
  } else if (by == CB_STREAM_BY_CUDA_STREAM) { /* torch */
    v = PyObject_GetAttr(obj, st->s_cuda_stream);
  } else if (by == CB_STREAM_BY_SLOT) { /* cubridge.Stream: no Python-level call */
    v = PyObject_GetAttr(obj, st->s_handle);
    if (v == Py_None) {
      Py_DECREF(v);
      PyErr_SetString(PyExc_ValueError, "the cubridge stream is closed");
      return -1;
    }
  } else {
    cb_type_error("stream",
                  "None, an int cudaStream_t, or an object with __cuda_stream__, .ptr or "
                  ".cuda_stream",
                  obj);
    return -1;
  }
  if (v == NULL || !PyLong_Check(v)) {
    Py_XDECREF(v);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "stream: its handle is not an int");
    return -1;
  }
  int rc = cb_handle_from_int(v, handle);
  Py_DECREF(v);
  return rc;
}

int cb_stream_from_handle(cb_state* st, uintptr_t handle, int device, cubridge_stream* stream) {
  *stream = NULL;
  int legacy = cb_norm_stream(handle) == 1, per_thread = handle == 2;
  if (!legacy && !per_thread) {
    device = -1; /* not a default stream: it knows its device, nothing to check */
  } else if (legacy && (device < 0 || st->device_count == 1)) {
    return 0; /* the current device's legacy default stream, and with one device every device's */
  }
  cubridge_status status = cubridge_stream_from_handle_on(handle, device, stream);
  if (status != CUBRIDGE_OK) {
    cb_raise_status(st, status);
    return -1;
  }
  return 0;
}

void cb_stream_release(cubridge_stream stream) {
  if (stream != NULL) cubridge_stream_destroy(stream); /* frees the wrapper only */
}

int cb_stream_release_after(cb_state* st, cubridge_stream stream, cubridge_status status) {
  if (status != CUBRIDGE_OK) cb_raise_status(st, status);
  cb_stream_release(stream);
  return status == CUBRIDGE_OK ? 0 : -1;
}

/* cb_stream_order; may_capture 0: the caller knows the producer is not
 * recording (the op's own stream, after the op), and the query is skipped. */
static int cb_stream_order_checked(cb_state* st, uintptr_t producer, uintptr_t consumer, int device,
                                   int may_capture) {
  if (consumer == CB_STREAM_UNORDERED || cb_norm_stream(producer) == cb_norm_stream(consumer) ||
      !cb_on_cuda(st))
    return 0;
  /* One event serves every handshake: record and wait are queued together
   * under the GIL, and a later record does not change an earlier wait. */
  cubridge_stream p = NULL, c = NULL;
  cubridge_status status = CUBRIDGE_OK;
  if (st->order_event == NULL) status = cubridge_event_create(&st->order_event);
  if (status == CUBRIDGE_OK && cb_stream_from_handle(st, producer, device, &p) < 0) return -1;
  if (status == CUBRIDGE_OK && cb_stream_from_handle(st, consumer, device, &c) < 0) {
    cb_stream_release(p);
    return -1;
  }
  /* A recording stream's event cannot order another stream: waiting for it
   * would end the recording (torch.cuda.graph's, CuPy's) with an error. */
  int capturing = 0;
  if (status == CUBRIDGE_OK && may_capture && cb_norm_stream(producer) > 1)
    status = cubridge_stream_is_capturing(p, &capturing);
  if (status == CUBRIDGE_OK && !capturing) status = cubridge_event_record(st->order_event, p);
  if (status == CUBRIDGE_OK && !capturing) status = cubridge_stream_wait_event(c, st->order_event);
  if (status != CUBRIDGE_OK) cb_raise_status(st, status); /* the releases clear the message */
  cb_stream_release(p);
  cb_stream_release(c);
  if (status != CUBRIDGE_OK) return -1;
  if (capturing) {
    PyErr_SetString(st->errors[CUBRIDGE_ERR_INVALID_ARGUMENT],
                    "the stream that wrote an argument is recording a graph: pass it as stream= "
                    "(with out=) to record the op into that graph");
    return -1;
  }
  return 0;
}

int cb_stream_order(cb_state* st, uintptr_t producer, uintptr_t consumer, int device) {
  return cb_stream_order_checked(st, producer, consumer, device, 1);
}

int cb_stream_hand_back(cb_state* st, uintptr_t op_stream, uintptr_t producer, int device) {
  return cb_stream_order_checked(st, op_stream, producer, device, 0);
}
