/* The ops of the C ABI as Python functions: argument import and checks, the
 * call with the GIL released, results. The Python layer (cubridge/_ops.py)
 * gives them keyword arguments and docstrings. */
#include <string.h>

#include "native.h"

/* Up to four array arguments of one call, released together. */
typedef struct {
  cb_arg args[4];
  int count;
  uintptr_t stream_handle;
  cubridge_stream stream;
  PyObject* result; /* owned: the array returned to the caller */
} cb_call;

static int cb_call_begin(cb_call* c, PyObject* stream_obj) {
  memset(c, 0, sizeof *c);
  if (cb_stream_handle(stream_obj, &c->stream_handle) < 0) return -1;
  return cb_stream_from_handle(c->stream_handle, &c->stream);
}

static cb_arg* cb_call_arg(cb_call* c, PyObject* obj, const char* name, int writable) {
  cb_arg* a = &c->args[c->count];
  if (cb_arg_get(obj, name, writable, c->stream_handle, a) < 0) return NULL;
  c->count++;
  if (cb_arg_order(a, c->stream_handle) < 0) return NULL;
  return a;
}

/* out= argument, or a new result shaped like `proto` with `dtype`. */
static cb_arg* cb_call_out(cb_call* c, PyObject* out_obj, const cb_arg* proto, int dtype) {
  if (out_obj == Py_None) {
    c->result = cb_new_result(proto, proto->ndim, proto->shape, dtype);
    if (c->result == NULL) return NULL;
  } else {
    Py_INCREF(out_obj);
    c->result = out_obj;
  }
  cb_arg* out = cb_call_arg(c, c->result, "out", 1);
  if (out == NULL) return NULL;
  if (out->dtype != dtype) {
    PyErr_Format(PyExc_TypeError, "out has dtype %s but the result has dtype %s",
                 cb_dtype_name(out->dtype), cb_dtype_name(dtype));
    return NULL;
  }
  int same = out->ndim == proto->ndim;
  for (int i = 0; same && i < out->ndim; i++) same = out->shape[i] == proto->shape[i];
  if (!same && cb_arg_same_shape(proto, out) < 0) return NULL;
  return out;
}

/* Releases everything; on success returns the result (or `value`). */
static void cb_call_release(cb_call* c) {
  for (int i = 0; i < c->count; i++) cb_arg_release(&c->args[i]);
  c->count = 0;
  cb_stream_release(c->stream);
  c->stream = NULL;
}

static PyObject* cb_call_end(cb_call* c, cubridge_status st, cb_arg* written, PyObject* value) {
  if (st == CUBRIDGE_OK && written != NULL) cb_arg_written(written, c->stream_handle);
  cb_call_release(c);
  if (st != CUBRIDGE_OK) {
    cb_raise_status(st);
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

static PyObject* cb_call_fail(cb_call* c) {
  cb_call_release(c);
  Py_CLEAR(c->result);
  return NULL;
}

static int cb_real(PyObject* obj, const char* name, double* v) {
  if (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyObject_HasAttrString(obj, "__float__")) {
    cb_type_error(name, "a real number", obj);
    return -1;
  }
  *v = PyFloat_AsDouble(obj);
  return *v == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int cb_copy_into(cb_call* c, cb_arg* dst, const cb_arg* src) {
  if (dst->ptr == src->ptr) return 0;
  if (cb_arg_check_overlap(src, dst) < 0) return -1;
  cubridge_status st;
  size_t bytes = src->n * cb_dtype_size(src->dtype);
  Py_BEGIN_ALLOW_THREADS st = cubridge_memcpy(dst->ptr, src->ptr, bytes, c->stream);
  Py_END_ALLOW_THREADS if (st != CUBRIDGE_OK) {
    cb_raise_status(st);
    return -1;
  }
  return 0;
}

/* ---- add, sub, mul, div ----------------------------------------------- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static PyObject* cb_binary(int op, PyObject* args) {
  PyObject *a_obj, *b_obj, *out_obj = Py_None, *stream_obj = Py_None, *zero_obj = NULL;
  double zero_value = 0.0;
  if (op == OP_DIV) {
    if (!PyArg_ParseTuple(args, "OOOOO:div", &a_obj, &b_obj, &zero_obj, &out_obj, &stream_obj))
      return NULL;
    if (cb_real(zero_obj, "zero_value", &zero_value) < 0) return NULL;
  } else if (!PyArg_ParseTuple(args, "OOOO", &a_obj, &b_obj, &out_obj, &stream_obj)) {
    return NULL;
  }
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *a, *b, *out;
  if ((a = cb_call_arg(&c, a_obj, "a", 0)) == NULL ||
      (b = cb_call_arg(&c, b_obj, "b", 0)) == NULL || cb_arg_same_dtype(a, b) < 0 ||
      cb_arg_same_shape(a, b) < 0 || (out = cb_call_out(&c, out_obj, a, a->dtype)) == NULL)
    return cb_call_fail(&c);
  cubridge_status st;
  int dtype = a->dtype;
  size_t n = a->n;
  Py_BEGIN_ALLOW_THREADS switch (op) {
    case OP_ADD:
      st = cubridge_add(dtype, a->ptr, b->ptr, out->ptr, n, c.stream);
      break;
    case OP_SUB:
      st = cubridge_sub(dtype, a->ptr, b->ptr, out->ptr, n, c.stream);
      break;
    case OP_MUL:
      st = cubridge_mul(dtype, a->ptr, b->ptr, out->ptr, n, c.stream);
      break;
    default:
      st = cubridge_div(dtype, a->ptr, b->ptr, out->ptr, n, zero_value, c.stream);
      break;
  }
  Py_END_ALLOW_THREADS return cb_call_end(&c, st, out, NULL);
}

static PyObject* cb_add(PyObject* m, PyObject* args) { return cb_binary(OP_ADD, args); }
static PyObject* cb_sub(PyObject* m, PyObject* args) { return cb_binary(OP_SUB, args); }
static PyObject* cb_mul(PyObject* m, PyObject* args) { return cb_binary(OP_MUL, args); }
static PyObject* cb_div(PyObject* m, PyObject* args) { return cb_binary(OP_DIV, args); }

/* ---- axpy, scale, fill, astype ---------------------------------------- */

static PyObject* cb_axpy(PyObject* m, PyObject* args) {
  PyObject *alpha_obj, *x_obj, *y_obj, *out_obj, *stream_obj;
  double alpha;
  if (!PyArg_ParseTuple(args, "OOOOO:axpy", &alpha_obj, &x_obj, &y_obj, &out_obj, &stream_obj) ||
      cb_real(alpha_obj, "alpha", &alpha) < 0)
    return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *x, *y, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL ||
      (y = cb_call_arg(&c, y_obj, "y", 0)) == NULL || cb_arg_same_dtype(x, y) < 0 ||
      cb_arg_same_shape(x, y) < 0 || (out = cb_call_out(&c, out_obj, y, y->dtype)) == NULL)
    return cb_call_fail(&c);
  if (out->ptr == x->ptr && out->ptr != y->ptr && out->n != 0) {
    PyErr_SetString(PyExc_ValueError, "axpy: out may be y (in place) or a new array, but not x");
    return cb_call_fail(&c);
  }
  /* Refused before y is copied into out: a failed call leaves out as it was. */
  if (cb_arg_check_overlap(x, out) < 0 || cb_copy_into(&c, out, y) < 0) return cb_call_fail(&c);
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_axpy(x->dtype, alpha, x->ptr, out->ptr, x->n, c.stream);
  Py_END_ALLOW_THREADS return cb_call_end(&c, st, out, NULL);
}

static PyObject* cb_scale(PyObject* m, PyObject* args) {
  PyObject *x_obj, *alpha_obj, *out_obj, *stream_obj;
  double alpha;
  if (!PyArg_ParseTuple(args, "OOOO:scale", &x_obj, &alpha_obj, &out_obj, &stream_obj) ||
      cb_real(alpha_obj, "alpha", &alpha) < 0)
    return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *x, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL ||
      (out = cb_call_out(&c, out_obj, x, x->dtype)) == NULL || cb_copy_into(&c, out, x) < 0)
    return cb_call_fail(&c);
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_scale(x->dtype, alpha, out->ptr, x->n, c.stream);
  Py_END_ALLOW_THREADS return cb_call_end(&c, st, out, NULL);
}

static PyObject* cb_fill(PyObject* m, PyObject* args) {
  PyObject *x_obj, *value_obj, *stream_obj;
  double value;
  if (!PyArg_ParseTuple(args, "OOO:fill", &x_obj, &value_obj, &stream_obj) ||
      cb_real(value_obj, "value", &value) < 0)
    return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg* x = cb_call_arg(&c, x_obj, "x", 1);
  if (x == NULL) return cb_call_fail(&c);
  Py_INCREF(x_obj);
  c.result = x_obj;
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_fill(x->dtype, value, x->ptr, x->n, c.stream);
  Py_END_ALLOW_THREADS return cb_call_end(&c, st, x, NULL);
}

static PyObject* cb_astype(PyObject* m, PyObject* args) {
  PyObject *x_obj, *dtype_obj, *out_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "OOOO:astype", &x_obj, &dtype_obj, &out_obj, &stream_obj))
    return NULL;
  int dtype = -1;
  if (dtype_obj != Py_None && (dtype = cb_dtype_from_object(dtype_obj, "dtype")) < 0) return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *x, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL) return cb_call_fail(&c);
  if (dtype < 0) {
    if (out_obj == Py_None) {
      PyErr_SetString(PyExc_TypeError, "astype: give dtype, out, or both");
      return cb_call_fail(&c);
    }
    cb_arg probe;
    if (cb_arg_get(out_obj, "out", 1, c.stream_handle, &probe) < 0) return cb_call_fail(&c);
    dtype = probe.dtype;
    cb_arg_release(&probe);
  }
  if ((out = cb_call_out(&c, out_obj, x, dtype)) == NULL) return cb_call_fail(&c);
  if (out->ptr != x->ptr && cb_arg_check_overlap(x, out) < 0) return cb_call_fail(&c);
  cubridge_status st;
  Py_BEGIN_ALLOW_THREADS st = cubridge_convert(x->dtype, x->ptr, dtype, out->ptr, x->n, c.stream);
  Py_END_ALLOW_THREADS return cb_call_end(&c, st, out, NULL);
}

/* ---- copies ----------------------------------------------------------- */

/* copy(obj, memory, stream) -> a new cubridge.Array holding obj's data. */
static PyObject* cb_copy(PyObject* m, PyObject* args) {
  PyObject *src_obj, *memory_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "OOO:copy", &src_obj, &memory_obj, &stream_obj)) return NULL;
  int kind = cb_parse_memory(memory_obj);
  if (kind < 0) return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *src, *dst;
  if ((src = cb_call_arg(&c, src_obj, "obj", 0)) == NULL ||
      (c.result = (PyObject*)cb_array_new(src->ndim, src->shape, src->dtype, kind)) == NULL ||
      (dst = cb_call_arg(&c, c.result, "out", 1)) == NULL || cb_copy_into(&c, dst, src) < 0)
    return cb_call_fail(&c);
  return cb_call_end(&c, CUBRIDGE_OK, dst, NULL);
}

/* copyto(dst, src, stream): dst[...] = src, same dtype and shape. */
static PyObject* cb_copyto(PyObject* m, PyObject* args) {
  PyObject *dst_obj, *src_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "OOO:copyto", &dst_obj, &src_obj, &stream_obj)) return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *src, *dst;
  if ((src = cb_call_arg(&c, src_obj, "src", 0)) == NULL ||
      (dst = cb_call_arg(&c, dst_obj, "dst", 1)) == NULL || cb_arg_same_dtype(src, dst) < 0 ||
      cb_arg_same_shape(src, dst) < 0 || cb_copy_into(&c, dst, src) < 0)
    return cb_call_fail(&c);
  Py_INCREF(dst_obj);
  c.result = dst_obj;
  return cb_call_end(&c, CUBRIDGE_OK, dst, NULL);
}

/* ---- reductions ------------------------------------------------------- */

enum { RED_SUM, RED_DOT, RED_MIN, RED_MAX };

static PyObject* cb_reduce(int op, PyObject* args) {
  PyObject *x_obj, *y_obj = NULL, *stream_obj;
  if (op == RED_DOT ? !PyArg_ParseTuple(args, "OOO:dot", &x_obj, &y_obj, &stream_obj)
                    : !PyArg_ParseTuple(args, "OO", &x_obj, &stream_obj))
    return NULL;
  cb_call c;
  if (cb_call_begin(&c, stream_obj) < 0) return NULL;
  cb_arg *x, *y = NULL;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL) return cb_call_fail(&c);
  if (op == RED_DOT) {
    if ((y = cb_call_arg(&c, y_obj, "y", 0)) == NULL) return cb_call_fail(&c);
    for (int i = 0; i < 2; i++) {
      cb_arg* v = i ? y : x;
      if (v->ndim != 1) {
        PyErr_Format(PyExc_ValueError, "dot: %s must be 1-D, got %d-D", v->name, v->ndim);
        return cb_call_fail(&c);
      }
    }
    if (cb_arg_same_dtype(x, y) < 0 || cb_arg_same_shape(x, y) < 0) return cb_call_fail(&c);
  }
  int rdtype = op == RED_MIN || op == RED_MAX ? x->dtype : cubridge_sum_dtype(x->dtype);
  if (rdtype < 0) {
    PyErr_SetString(PyExc_TypeError, "x: no result dtype for this dtype");
    return cb_call_fail(&c);
  }
  unsigned char result[16];
  memset(result, 0, sizeof result);
  cubridge_status st;
  int dtype = x->dtype;
  size_t n = x->n;
  Py_BEGIN_ALLOW_THREADS switch (op) {
    case RED_SUM:
      st = cubridge_sum(dtype, x->ptr, n, result, c.stream);
      break;
    case RED_DOT:
      st = cubridge_dot(dtype, x->ptr, y->ptr, n, result, c.stream);
      break;
    case RED_MIN:
      st = cubridge_min(dtype, x->ptr, n, result, c.stream);
      break;
    default:
      st = cubridge_max(dtype, x->ptr, n, result, c.stream);
      break;
  }
  Py_END_ALLOW_THREADS PyObject* value = NULL;
  if (st == CUBRIDGE_OK && (value = cb_scalar_to_python(rdtype, result)) == NULL)
    return cb_call_fail(&c);
  return cb_call_end(&c, st, NULL, value);
}

static PyObject* cb_sum(PyObject* m, PyObject* args) { return cb_reduce(RED_SUM, args); }
static PyObject* cb_dot(PyObject* m, PyObject* args) { return cb_reduce(RED_DOT, args); }
static PyObject* cb_min(PyObject* m, PyObject* args) { return cb_reduce(RED_MIN, args); }
static PyObject* cb_max(PyObject* m, PyObject* args) { return cb_reduce(RED_MAX, args); }

PyMethodDef cb_op_methods[] = {
    {"add", cb_add, METH_VARARGS, "add(a, b, out, stream)"},
    {"sub", cb_sub, METH_VARARGS, "sub(a, b, out, stream)"},
    {"mul", cb_mul, METH_VARARGS, "mul(a, b, out, stream)"},
    {"div", cb_div, METH_VARARGS, "div(a, b, zero_value, out, stream)"},
    {"axpy", cb_axpy, METH_VARARGS, "axpy(alpha, x, y, out, stream)"},
    {"scale", cb_scale, METH_VARARGS, "scale(x, alpha, out, stream)"},
    {"fill", cb_fill, METH_VARARGS, "fill(x, value, stream)"},
    {"astype", cb_astype, METH_VARARGS, "astype(x, dtype, out, stream)"},
    {"copy", cb_copy, METH_VARARGS, "copy(obj, memory, stream) -> Array"},
    {"copyto", cb_copyto, METH_VARARGS, "copyto(dst, src, stream) -> dst"},
    {"sum", cb_sum, METH_VARARGS, "sum(x, stream)"},
    {"dot", cb_dot, METH_VARARGS, "dot(x, y, stream)"},
    {"min", cb_min, METH_VARARGS, "min(x, stream)"},
    {"max", cb_max, METH_VARARGS, "max(x, stream)"},
    {NULL, NULL, 0, NULL}};
