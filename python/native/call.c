/* One op call (call.h). */
#include "call.h"

#include "array.h"
#include "backend.h"
#include "checks.h"
#include "dlpack.h"
#include "dtypes.h"
#include "errors.h"
#include "graph.h"
#include "import.h"
#include "module.h"
#include "results.h"
#include "stream.h"

/* Keeps what the call uses for the Graph when its stream is the one a
 * cubridge.Stream records on. */
static void cb_call_note_recording(cb_call* c) {
  if (c->recording == NULL && c->rt.capturing)
    c->recording = cb_graph_recording(c->m, c->rt.handle); /* kept should the capture end */
}

int cb_call_begin(cb_call* c, cb_module* m, PyObject* stream_obj, int may_follow) {
  c->m = m;
  c->handle = 0;
  c->count = 0;
  c->given = NULL;
  c->result = NULL;
  c->recording = NULL;
  c->rt.struct_size = sizeof c->rt;
  c->rt.followed = NULL;
  c->rt.count = 0;
  if (cb_stream_handle(m, stream_obj, &c->handle) < 0 ||
      cb_stream_wrap(m, c->handle, -1, &c->given) < 0)
    return -1;
  int follow = may_follow && (stream_obj == NULL || stream_obj == Py_None);
  if (cb_check(
          m, cubridge_call_begin(&c->rt, c->given, follow ? CUBRIDGE_CALL_FOLLOW_PRODUCER : 0)) < 0)
    return -1;
  cb_call_note_recording(c);
  return 0;
}

cb_arg* cb_call_arg(cb_call* c, PyObject* obj, const char* name, int access) {
  if (c->count >= CB_MAX_CALL_ARGS) {
    PyErr_Format(PyExc_TypeError, "a call takes at most %d array arguments", CB_MAX_CALL_ARGS);
    return NULL;
  }
  cb_arg* a = &c->args[c->count];
  /* The stream the producer is to order its work for: the call's (the CPU
   * backend's wrappers hold none, but its producers are told the one given). */
  uintptr_t consumer = c->rt.capturing          ? CB_STREAM_UNORDERED
                       : c->rt.followed != NULL ? c->rt.handle
                                                : c->handle;
  if (cb_import(c->m, obj, name, consumer, a) < 0) return NULL;
  c->count++;
  if (cb_check(c->m, cubridge_call_add(&c->rt, &a->v, access)) < 0) return NULL;
  cb_call_note_recording(c); /* the call may follow its first argument's stream */
  if (c->recording != NULL && PyList_Append(c->recording, obj) < 0) return NULL;
  return a;
}

cb_arg* cb_call_out(cb_call* c, PyObject* out_obj, const cb_arg* proto, int dtype) {
  if (out_obj == Py_None) {
    c->result = cb_new_result(c->m, proto, dtype, c->rt.stream);
    if (c->result == NULL) return NULL;
  } else {
    c->result = Py_NewRef(out_obj);
  }
  cb_arg* out = cb_call_arg(c, c->result, "out", CUBRIDGE_ACCESS_WRITE);
  if (out == NULL) return NULL;
  if (out->v.dtype != dtype) {
    PyErr_Format(PyExc_TypeError, "out has dtype %s but the result has dtype %s",
                 cb_dtype(c->m, out->v.dtype)->name, cb_dtype(c->m, dtype)->name);
    return NULL;
  }
  if (cb_same_shape(proto, out) < 0) return NULL;
  return out;
}

int cb_call_copy(cb_call* c, cb_arg* dst, const cb_arg* src) {
  if (dst->v.data == src->v.data) return 0;
  if (cb_check_overlap(src, dst) < 0) return -1;
  cubridge_status status;
  void* to = dst->v.data;
  const void* from = src->v.data;
  size_t bytes = src->v.nbytes;
  cubridge_stream stream = c->rt.stream;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_memcpy(to, from, bytes, stream);
  Py_END_ALLOW_THREADS;
  return cb_check(c->m, status);
}

void cb_call_assume_device(cb_call* c) {
  if (c->rt.device >= 0) (void)cubridge_assume_device(c->rt.device);
}

static void cb_call_release(cb_call* c) {
  for (int i = 0; i < c->count; i++) cb_arg_release(&c->args[i]);
  c->count = 0;
  cb_stream_release(c->given);
  c->given = NULL;
  Py_CLEAR(c->recording);
}

PyObject* cb_call_end(cb_call* c, cubridge_status status, PyObject* value) {
  /* The runtime keeps a failed op's message; it is raised before the
   * releases, which are library calls and clear it. */
  status = cubridge_call_end(&c->rt, status);
  if (status != CUBRIDGE_OK) cb_raise_status(c->m, status);
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
  (void)cubridge_call_end(&c->rt, CUBRIDGE_ERR_INTERNAL); /* releases only: nothing ran */
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

int cb_int_scalar_exact(cb_module* m, PyObject* obj, const char* fn, const char* name, int dtype) {
  const cb_dtype_info* d = cb_dtype(m, dtype);
  if (d->dl_code != kDLInt || PyFloat_Check(obj) || !PyIndex_Check(obj)) return 0;
  PyObject* i = PyNumber_Index(obj);
  if (i == NULL) return -1;
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  if (v == -1 && PyErr_Occurred()) {
    Py_DECREF(i);
    return -1;
  }
  /* 2^63 is a double, not an int64: compare below it. */
  const double dv = (double)v;
  const int exact = !overflow && dv < 9223372036854775808.0 && (long long)dv == v;
  if (!exact) {
    PyErr_Format(m->errors.classes[CUBRIDGE_ERR_INVALID_ARGUMENT],
                 overflow ? "%s: argument '%s' = %S is outside int64's range (dtype %s)"
                          : "%s: argument '%s' = %S is not exactly representable as a float64, "
                            "which carries scalars to the library (dtype %s; integers up to "
                            "2**53 are)",
                 fn, name, i, d->name);
  }
  Py_DECREF(i);
  return exact ? 0 : -1;
}
