/* The ops of the C ABI as Python functions: argument import and checks, the
 * call with the GIL released, results. The Python layer (cubridge/_ops.py)
 * gives them keyword arguments and docstrings. */
#include "ops.h"

#include <string.h>

#include "array.h"
#include "call.h"
#include "checks.h"
#include "dtypes.h"

/* ---- add, sub, mul, div ----------------------------------------------- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };

static PyObject* cb_binary(PyObject* m, int op, PyObject* args) {
  static const char* const formats[] = {"OOOO:add", "OOOO:sub", "OOOO:mul", "OOOOO:div"};
  PyObject *a_obj, *b_obj, *out_obj, *stream_obj, *zero_obj;
  double zero_value = 0.0;
  if (op == OP_DIV) {
    if (!PyArg_ParseTuple(args, formats[op], &a_obj, &b_obj, &zero_obj, &out_obj, &stream_obj) ||
        cb_real(zero_obj, "zero_value", &zero_value) < 0)
      return NULL;
  } else if (!PyArg_ParseTuple(args, formats[op], &a_obj, &b_obj, &out_obj, &stream_obj)) {
    return NULL;
  }
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *a, *b, *out;
  if ((a = cb_call_arg(&c, a_obj, "a", 0)) == NULL ||
      (b = cb_call_arg(&c, b_obj, "b", 0)) == NULL || cb_same_dtype(st, a, b) < 0 ||
      cb_same_shape(a, b) < 0 || (out = cb_call_out(&c, out_obj, a, a->dtype)) == NULL)
    return cb_call_fail(&c);
  cubridge_status status;
  int dtype = a->dtype;
  size_t n = a->n;
  const void *pa = a->data, *pb = b->data;
  void* po = out->data;
  cubridge_stream stream = c.stream;
  cb_call_assume_device(&c);
  Py_BEGIN_ALLOW_THREADS;
  switch (op) {
    case OP_ADD:
      status = cubridge_add(dtype, pa, pb, po, n, stream);
      break;
    case OP_SUB:
      status = cubridge_sub(dtype, pa, pb, po, n, stream);
      break;
    case OP_MUL:
      status = cubridge_mul(dtype, pa, pb, po, n, stream);
      break;
    default:
      status = cubridge_div(dtype, pa, pb, po, n, zero_value, stream);
      break;
  }
  Py_END_ALLOW_THREADS;
  return cb_call_end(&c, status, out, NULL);
}

static PyObject* cb_add(PyObject* m, PyObject* args) { return cb_binary(m, OP_ADD, args); }
static PyObject* cb_sub(PyObject* m, PyObject* args) { return cb_binary(m, OP_SUB, args); }
static PyObject* cb_mul(PyObject* m, PyObject* args) { return cb_binary(m, OP_MUL, args); }
static PyObject* cb_div(PyObject* m, PyObject* args) { return cb_binary(m, OP_DIV, args); }

/* ---- axpy, scale, fill, astype ---------------------------------------- */

static PyObject* cb_axpy(PyObject* m, PyObject* args) {
  PyObject *alpha_obj, *x_obj, *y_obj, *out_obj, *stream_obj;
  double alpha;
  if (!PyArg_ParseTuple(args, "OOOOO:axpy", &alpha_obj, &x_obj, &y_obj, &out_obj, &stream_obj) ||
      cb_real(alpha_obj, "alpha", &alpha) < 0)
    return NULL;
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *x, *y, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL ||
      (y = cb_call_arg(&c, y_obj, "y", 0)) == NULL || cb_same_dtype(st, x, y) < 0 ||
      cb_same_shape(x, y) < 0 || (out = cb_call_out(&c, out_obj, y, y->dtype)) == NULL)
    return cb_call_fail(&c);
  if (out->data == x->data && out->data != y->data && out->n != 0) {
    PyErr_SetString(PyExc_ValueError, "axpy: out may be y (in place) or a new array, but not x");
    return cb_call_fail(&c);
  }
  /* Refused before y is copied into out: a failed call leaves out as it was. */
  if (cb_check_overlap(x, out) < 0 || cb_call_copy(&c, out, y) < 0) return cb_call_fail(&c);
  cubridge_status status;
  int dtype = x->dtype;
  size_t n = x->n;
  const void* px = x->data;
  void* po = out->data;
  cubridge_stream stream = c.stream;
  cb_call_assume_device(&c);
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_axpy(dtype, alpha, px, po, n, stream);
  Py_END_ALLOW_THREADS;
  return cb_call_end(&c, status, out, NULL);
}

static PyObject* cb_scale(PyObject* m, PyObject* args) {
  PyObject *x_obj, *alpha_obj, *out_obj, *stream_obj;
  double alpha;
  if (!PyArg_ParseTuple(args, "OOOO:scale", &x_obj, &alpha_obj, &out_obj, &stream_obj) ||
      cb_real(alpha_obj, "alpha", &alpha) < 0)
    return NULL;
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *x, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL ||
      (out = cb_call_out(&c, out_obj, x, x->dtype)) == NULL || cb_call_copy(&c, out, x) < 0)
    return cb_call_fail(&c);
  cubridge_status status;
  int dtype = x->dtype;
  size_t n = x->n;
  void* po = out->data;
  cubridge_stream stream = c.stream;
  cb_call_assume_device(&c);
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_scale(dtype, alpha, po, n, stream);
  Py_END_ALLOW_THREADS;
  return cb_call_end(&c, status, out, NULL);
}

static PyObject* cb_fill(PyObject* m, PyObject* args) {
  PyObject *x_obj, *value_obj, *stream_obj;
  double value;
  if (!PyArg_ParseTuple(args, "OOO:fill", &x_obj, &value_obj, &stream_obj) ||
      cb_real(value_obj, "value", &value) < 0)
    return NULL;
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view* x = cb_call_arg(&c, x_obj, "x", 1);
  if (x == NULL) return cb_call_fail(&c);
  c.result = Py_NewRef(x_obj);
  cubridge_status status;
  int dtype = x->dtype;
  size_t n = x->n;
  void* px = x->data;
  cubridge_stream stream = c.stream;
  cb_call_assume_device(&c);
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_fill(dtype, value, px, n, stream);
  Py_END_ALLOW_THREADS;
  return cb_call_end(&c, status, x, NULL);
}

static PyObject* cb_astype(PyObject* m, PyObject* args) {
  PyObject *x_obj, *dtype_obj, *out_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "OOOO:astype", &x_obj, &dtype_obj, &out_obj, &stream_obj))
    return NULL;
  cb_state* st = cb_state_of_module(m);
  int dtype = -1;
  if (dtype_obj != Py_None && (dtype = cb_dtype_from_object(st, dtype_obj, "dtype")) < 0)
    return NULL;
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *x, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL) return cb_call_fail(&c);
  if (dtype < 0) {
    if (out_obj == Py_None) {
      PyErr_SetString(PyExc_TypeError, "astype: give dtype, out, or both");
      return cb_call_fail(&c);
    }
    cb_view* probe = cb_call_arg(&c, out_obj, "out", 1);
    if (probe == NULL) return cb_call_fail(&c);
    dtype = probe->dtype;
  }
  if ((out = cb_call_out(&c, out_obj, x, dtype)) == NULL) return cb_call_fail(&c);
  if (out->data != x->data && cb_check_overlap(x, out) < 0) return cb_call_fail(&c);
  cubridge_status status;
  int src_dtype = x->dtype;
  size_t n = x->n;
  const void* px = x->data;
  void* po = out->data;
  cubridge_stream stream = c.stream;
  cb_call_assume_device(&c);
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_convert(src_dtype, px, dtype, po, n, stream);
  Py_END_ALLOW_THREADS;
  return cb_call_end(&c, status, out, NULL);
}

/* ---- copies ----------------------------------------------------------- */

/* copy(obj, memory, stream, device) -> a new cubridge.Array holding obj's data,
 * on `device` (None: the source's device for device memory, else the current). */
static PyObject* cb_copy(PyObject* m, PyObject* args) {
  PyObject *src_obj, *memory_obj, *stream_obj, *device_obj = Py_None;
  if (!PyArg_ParseTuple(args, "OOO|O:copy", &src_obj, &memory_obj, &stream_obj, &device_obj))
    return NULL;
  cb_state* st = cb_state_of_module(m);
  int kind = cb_parse_memory(st, memory_obj);
  if (kind < 0) return NULL;
  int device = cb_parse_device(st, device_obj);
  if (device < -1) return NULL;
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *src, *dst;
  if ((src = cb_call_arg(&c, src_obj, "obj", 0)) == NULL) return cb_call_fail(&c);
  if (device < 0 &&
      (src->memory == CUBRIDGE_MEMORY_DEVICE || src->memory == CUBRIDGE_MEMORY_MANAGED))
    device = src->device;
  if ((c.result = (PyObject*)cb_array_new(st, src->ndim, src->shape, src->dtype, kind, device,
                                          c.stream_handle, c.stream)) == NULL ||
      (dst = cb_call_arg(&c, c.result, "out", 1)) == NULL || cb_call_copy(&c, dst, src) < 0)
    return cb_call_fail(&c);
  return cb_call_end(&c, CUBRIDGE_OK, dst, NULL);
}

/* copyto(dst, src, stream): dst[...] = src, same dtype and shape. */
static PyObject* cb_copyto(PyObject* m, PyObject* args) {
  PyObject *dst_obj, *src_obj, *stream_obj;
  if (!PyArg_ParseTuple(args, "OOO:copyto", &dst_obj, &src_obj, &stream_obj)) return NULL;
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *src, *dst;
  if ((src = cb_call_arg(&c, src_obj, "src", 0)) == NULL ||
      (dst = cb_call_arg(&c, dst_obj, "dst", 1)) == NULL || cb_same_dtype(st, src, dst) < 0 ||
      cb_same_shape(src, dst) < 0 || cb_call_copy(&c, dst, src) < 0)
    return cb_call_fail(&c);
  c.result = Py_NewRef(dst_obj);
  return cb_call_end(&c, CUBRIDGE_OK, dst, NULL);
}

/* ---- reductions ------------------------------------------------------- */

enum { RED_SUM, RED_DOT, RED_MIN, RED_MAX };

static PyObject* cb_reduce(PyObject* m, int op, PyObject* args) {
  static const char* const formats[] = {"OO:sum", "OOO:dot", "OO:min", "OO:max"};
  PyObject *x_obj, *y_obj = NULL, *stream_obj;
  if (op == RED_DOT ? !PyArg_ParseTuple(args, formats[op], &x_obj, &y_obj, &stream_obj)
                    : !PyArg_ParseTuple(args, formats[op], &x_obj, &stream_obj))
    return NULL;
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *x, *y = NULL;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL) return cb_call_fail(&c);
  if (op == RED_DOT) {
    if ((y = cb_call_arg(&c, y_obj, "y", 0)) == NULL) return cb_call_fail(&c);
    for (int i = 0; i < 2; i++) {
      const cb_view* v = i ? y : x;
      if (v->ndim != 1) {
        PyErr_Format(PyExc_ValueError, "dot: %s must be 1-D, got %d-D", v->name, v->ndim);
        return cb_call_fail(&c);
      }
    }
    if (cb_same_dtype(st, x, y) < 0 || cb_same_shape(x, y) < 0) return cb_call_fail(&c);
  }
  int rdtype = op == RED_MIN || op == RED_MAX ? x->dtype : cubridge_sum_dtype(x->dtype);
  if (rdtype < 0) {
    PyErr_SetString(PyExc_TypeError, "x: no result dtype for this dtype");
    return cb_call_fail(&c);
  }
  unsigned char result[16];
  memset(result, 0, sizeof result);
  cubridge_status status;
  int dtype = x->dtype;
  size_t n = x->n;
  const void *px = x->data, *py = y ? y->data : NULL;
  cubridge_stream stream = c.stream;
  cb_call_assume_device(&c);
  Py_BEGIN_ALLOW_THREADS;
  switch (op) {
    case RED_SUM:
      status = cubridge_sum(dtype, px, n, result, stream);
      break;
    case RED_DOT:
      status = cubridge_dot(dtype, px, py, n, result, stream);
      break;
    case RED_MIN:
      status = cubridge_min(dtype, px, n, result, stream);
      break;
    default:
      status = cubridge_max(dtype, px, n, result, stream);
      break;
  }
  Py_END_ALLOW_THREADS;
  PyObject* value = NULL;
  if (status == CUBRIDGE_OK && (value = cb_scalar_to_python(st, rdtype, result)) == NULL)
    return cb_call_fail(&c);
  return cb_call_end(&c, status, NULL, value);
}

static PyObject* cb_sum(PyObject* m, PyObject* args) { return cb_reduce(m, RED_SUM, args); }
static PyObject* cb_dot(PyObject* m, PyObject* args) { return cb_reduce(m, RED_DOT, args); }
static PyObject* cb_min(PyObject* m, PyObject* args) { return cb_reduce(m, RED_MIN, args); }
static PyObject* cb_max(PyObject* m, PyObject* args) { return cb_reduce(m, RED_MAX, args); }

static PyMethodDef cb_op_methods[] = {
    {"add", cb_add, METH_VARARGS, "add(a, b, out, stream)"},
    {"sub", cb_sub, METH_VARARGS, "sub(a, b, out, stream)"},
    {"mul", cb_mul, METH_VARARGS, "mul(a, b, out, stream)"},
    {"div", cb_div, METH_VARARGS, "div(a, b, zero_value, out, stream)"},
    {"axpy", cb_axpy, METH_VARARGS, "axpy(alpha, x, y, out, stream)"},
    {"scale", cb_scale, METH_VARARGS, "scale(x, alpha, out, stream)"},
    {"fill", cb_fill, METH_VARARGS, "fill(x, value, stream)"},
    {"astype", cb_astype, METH_VARARGS, "astype(x, dtype, out, stream)"},
    {"copy", cb_copy, METH_VARARGS, "copy(obj, memory, stream, device=None) -> Array"},
    {"copyto", cb_copyto, METH_VARARGS, "copyto(dst, src, stream) -> dst"},
    {"sum", cb_sum, METH_VARARGS, "sum(x, stream)"},
    {"dot", cb_dot, METH_VARARGS, "dot(x, y, stream)"},
    {"min", cb_min, METH_VARARGS, "min(x, stream)"},
    {"max", cb_max, METH_VARARGS, "max(x, stream)"},
    {NULL, NULL, 0, NULL}};

int cb_ops_init(PyObject* module, cb_state* st) {
  (void)st;
  return PyModule_AddFunctions(module, cb_op_methods);
}
