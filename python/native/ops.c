/* The ops of the C ABI as Python functions: argument import and checks, the
 * call with the GIL released, results. The Python layer (cubridge/_ops.py)
 * gives them keyword arguments and docstrings. */
#include "ops.h"

#include <string.h>

#include "array.h"
#include "call.h"
#include "checks.h"
#include "dtypes.h"

/* ---- the C ABI call ---------------------------------------------------- */

enum {
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_AXPY,
  OP_SCALE,
  OP_FILL,
  OP_CONVERT,
  OP_SUM,
  OP_DOT,
  OP_MIN,
  OP_MAX
};

/* One op's C ABI arguments, gathered while the GIL is held. */
typedef struct cb_op_args {
  int op, dtype, out_dtype;
  double scalar; /* zero_value, alpha or the fill value */
  const void *x, *y;
  void* out; /* the output array, or the reduction's result */
  size_t n;
} cb_op_args;

/* The ops of one signature, indexed from their first OP_ value. */
typedef cubridge_status (*cb_binary_fn)(int, const void*, const void*, void*, size_t,
                                        cubridge_stream);
static const cb_binary_fn cb_binary_fns[] = {cubridge_add, cubridge_sub, cubridge_mul};
typedef cubridge_status (*cb_reduce_fn)(int, const void*, size_t, void*, cubridge_stream);
static const cb_reduce_fn cb_reduce_fns[] = {cubridge_sum, NULL, cubridge_min, cubridge_max};

/* Calls the op with the GIL released, on the call's stream and device. */
static cubridge_status cb_run(cb_call* c, const cb_op_args* o) {
  cubridge_status status;
  cubridge_stream stream = c->stream;
  cb_call_assume_device(c);
  Py_BEGIN_ALLOW_THREADS;
  if (o->op <= OP_MUL) {
    status = cb_binary_fns[o->op - OP_ADD](o->dtype, o->x, o->y, o->out, o->n, stream);
  } else if (o->op == OP_DIV) {
    status = cubridge_div(o->dtype, o->x, o->y, o->out, o->n, o->scalar, stream);
  } else if (o->op == OP_AXPY) {
    status = cubridge_axpy(o->dtype, o->scalar, o->x, o->out, o->n, stream);
  } else if (o->op == OP_SCALE) {
    status = cubridge_scale(o->dtype, o->scalar, o->out, o->n, stream);
  } else if (o->op == OP_FILL) {
    status = cubridge_fill(o->dtype, o->scalar, o->out, o->n, stream);
  } else if (o->op == OP_CONVERT) {
    status = cubridge_convert(o->dtype, o->x, o->out_dtype, o->out, o->n, stream);
  } else if (o->op == OP_DOT) {
    status = cubridge_dot(o->dtype, o->x, o->y, o->n, o->out, stream);
  } else {
    status = cb_reduce_fns[o->op - OP_SUM](o->dtype, o->x, o->n, o->out, stream);
  }
  Py_END_ALLOW_THREADS;
  return status;
}

/* Imports two inputs of one dtype and one shape. -1 with an error. */
static int cb_call_pair(cb_call* c, PyObject* a_obj, const char* a_name, PyObject* b_obj,
                        const char* b_name, cb_view** a, cb_view** b) {
  if ((*a = cb_call_arg(c, a_obj, a_name, 0)) == NULL ||
      (*b = cb_call_arg(c, b_obj, b_name, 0)) == NULL)
    return -1;
  return cb_same_dtype(c->st, *a, *b) < 0 || cb_same_shape(*a, *b) < 0 ? -1 : 0;
}

/* ---- add, sub, mul, div ----------------------------------------------- */

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
  if (cb_call_pair(&c, a_obj, "a", b_obj, "b", &a, &b) < 0 ||
      (out = cb_call_out(&c, out_obj, a, a->dtype)) == NULL)
    return cb_call_fail(&c);
  cb_op_args o = {op, a->dtype, 0, zero_value, a->data, b->data, out->data, a->n};
  return cb_call_end(&c, cb_run(&c, &o), out, NULL);
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
  if (cb_call_pair(&c, x_obj, "x", y_obj, "y", &x, &y) < 0 ||
      (out = cb_call_out(&c, out_obj, y, y->dtype)) == NULL)
    return cb_call_fail(&c);
  if (out->data == x->data && out->data != y->data && out->n != 0) {
    PyErr_SetString(PyExc_ValueError, "axpy: out may be y (in place) or a new array, but not x");
    return cb_call_fail(&c);
  }
  /* Refused before y is copied into out: a failed call leaves out as it was. */
  if (cb_check_overlap(x, out) < 0 || cb_call_copy(&c, out, y) < 0) return cb_call_fail(&c);
  cb_op_args o = {OP_AXPY, x->dtype, 0, alpha, x->data, NULL, out->data, x->n};
  return cb_call_end(&c, cb_run(&c, &o), out, NULL);
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
  cb_op_args o = {OP_SCALE, x->dtype, 0, alpha, NULL, NULL, out->data, x->n};
  return cb_call_end(&c, cb_run(&c, &o), out, NULL);
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
  cb_op_args o = {OP_FILL, x->dtype, 0, value, NULL, NULL, x->data, x->n};
  return cb_call_end(&c, cb_run(&c, &o), x, NULL);
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
  cb_op_args o = {OP_CONVERT, x->dtype, dtype, 0.0, x->data, NULL, out->data, x->n};
  return cb_call_end(&c, cb_run(&c, &o), out, NULL);
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

static PyObject* cb_reduce(PyObject* m, int op, PyObject* args) {
  static const char* const formats[] = {"OO:sum", "OOO:dot", "OO:min", "OO:max"};
  const char* format = formats[op - OP_SUM];
  PyObject *x_obj, *y_obj = NULL, *stream_obj;
  if (op == OP_DOT ? !PyArg_ParseTuple(args, format, &x_obj, &y_obj, &stream_obj)
                   : !PyArg_ParseTuple(args, format, &x_obj, &stream_obj))
    return NULL;
  cb_state* st = cb_state_of_module(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj) < 0) return cb_call_fail(&c);
  cb_view *x, *y = NULL;
  if ((x = cb_call_arg(&c, x_obj, "x", 0)) == NULL) return cb_call_fail(&c);
  if (op == OP_DOT) {
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
  int rdtype = op == OP_MIN || op == OP_MAX ? x->dtype : cubridge_sum_dtype(x->dtype);
  if (rdtype < 0) {
    PyErr_SetString(PyExc_TypeError, "x: no result dtype for this dtype");
    return cb_call_fail(&c);
  }
  unsigned char result[16];
  memset(result, 0, sizeof result);
  cb_op_args o = {op, x->dtype, 0, 0.0, x->data, y ? y->data : NULL, result, x->n};
  cubridge_status status = cb_run(&c, &o);
  PyObject* value = NULL;
  if (status == CUBRIDGE_OK && (value = cb_scalar_to_python(st, rdtype, result)) == NULL)
    return cb_call_fail(&c);
  return cb_call_end(&c, status, NULL, value);
}

static PyObject* cb_sum(PyObject* m, PyObject* args) { return cb_reduce(m, OP_SUM, args); }
static PyObject* cb_dot(PyObject* m, PyObject* args) { return cb_reduce(m, OP_DOT, args); }
static PyObject* cb_min(PyObject* m, PyObject* args) { return cb_reduce(m, OP_MIN, args); }
static PyObject* cb_max(PyObject* m, PyObject* args) { return cb_reduce(m, OP_MAX, args); }

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
