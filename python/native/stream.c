/* Stream arguments (stream.h). */
#include "stream.h"

#include "backend.h"
#include "errors.h"
#include "known_types.h"
#include "module.h"

static int cb_handle_from_int(PyObject* obj, uintptr_t* handle) {
  unsigned long long v = PyLong_AsUnsignedLongLong(obj);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_SetString(PyExc_ValueError, "stream must be a non-negative cudaStream_t handle");
    return -1;
  }
  *handle = (uintptr_t)v;
  return 0;
}

int cb_stream_handle(cb_module* m, PyObject* obj, uintptr_t* handle) {
  *handle = 0;
  if (obj == NULL || obj == Py_None) return 0;
  if (PyLong_Check(obj)) return cb_handle_from_int(obj, handle);
  int by = cb_type_hint_of(m, Py_TYPE(obj))->stream;
  if (by == CB_STREAM_BY_INSTANCE) { /* set on the instance, if anywhere */
    by = PyObject_HasAttr(obj, m->names.cuda_stream_proto) ? CB_STREAM_BY_PROTOCOL
         : PyObject_HasAttr(obj, m->names.ptr)             ? CB_STREAM_BY_PTR
         : PyObject_HasAttr(obj, m->names.cuda_stream)     ? CB_STREAM_BY_CUDA_STREAM
                                                           : CB_STREAM_BY_INSTANCE;
  }
  PyObject* v = NULL;
  if (by == CB_STREAM_BY_PROTOCOL) {
    /* CUDA stream protocol: __cuda_stream__() -> (version, handle). */
    PyObject* t = PyObject_CallMethodObjArgs(obj, m->names.cuda_stream_proto, NULL);
    if (t == NULL) return -1;
    if (PyTuple_Check(t) && PyTuple_Size(t) == 2) v = Py_NewRef(PyTuple_GetItem(t, 1));
    Py_DECREF(t);
  } else if (by == CB_STREAM_BY_PTR) { /* CuPy */
    v = PyObject_GetAttr(obj, m->names.ptr);
  } else if (by == CB_STREAM_BY_CUDA_STREAM) { /* torch */
    v = PyObject_GetAttr(obj, m->names.cuda_stream);
  } else if (by == CB_STREAM_BY_SLOT) { /* cubridge.Stream: no Python-level call */
    v = PyObject_GetAttr(obj, m->names.handle);
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

int cb_stream_wrap(cb_module* m, uintptr_t handle, int device, cubridge_stream* stream) {
  *stream = NULL;
  int legacy = cb_norm_stream(handle) == 1, per_thread = handle == 2;
  if (!legacy && !per_thread) {
    device = -1; /* not a default stream: it knows its device, nothing to check */
  } else if (legacy && (device < 0 || cb_device_count(m) == 1)) {
    return 0; /* the current device's legacy default stream, and with one device every device's */
  }
  return cb_check(m, cubridge_stream_from_handle_on(handle, device, stream));
}

void cb_stream_release(cubridge_stream stream) {
  if (stream != NULL) cubridge_stream_destroy(stream); /* frees the wrapper only */
}
