/* The ops of the C ABI as Python functions: argument import and checks, the
 * call with the GIL released, results. cubridge/_ops.py binds them (bind,
 * signature.c) as builtins with keyword arguments and its docstrings. */
#include "ops.h"

#include <string.h>

#include "array.h"
#include "backend.h"
#include "call.h"
#include "checks.h"
#include "dtypes.h"
#include "errors.h"
#include "module.h"
#include "signature.h"

/* The ops take positional arguments only (cb_call_signature maps keywords) and
 * use METH_FASTCALL: no argument tuple is built per call. -1 with the
 * TypeError PyArg_ParseTuple would raise when nargs is outside [min, max]. */
static int cb_nargs(const char* fn, Py_ssize_t nargs, Py_ssize_t min, Py_ssize_t max) {
  if (nargs >= min && nargs <= max) return 0;
  if (min == max) {
    PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)", fn, min, nargs);
  } else {
    PyErr_Format(PyExc_TypeError, "%s() takes from %zd to %zd arguments (%zd given)", fn, min, max,
                 nargs);
  }
  return -1;
}

typedef PyObject* const* cb_args;

#define CB_READ CUBRIDGE_ACCESS_READ
#define CB_WRITE CUBRIDGE_ACCESS_WRITE

/* The method `name`: `impl` (one function for a family of ops) for op `op`. */
#define CB_OP_ENTRY(name, impl, op)                                    \
  static PyObject* name(PyObject* m, cb_args args, Py_ssize_t nargs) { \
    return impl(m, op, args, nargs);                                   \
  }

/* Elements up to which a CPU-backend op runs with the GIL held (cb_run). */
#define CB_HOLD_GIL_MAX_N 4096

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

/* Calls the op on the call's stream and device. The GIL is released, except
 * for small arrays on the CPU backend: there releasing and taking it back costs
 * more than the op (NumPy keeps it below a threshold too). Device work always
 * releases it: a launch may wait for the queue, a reduction for the GPU. */
static cubridge_status cb_run(cb_call* c, const cb_op_args* o) {
  cubridge_status status;
  cubridge_stream stream = c->rt.stream;
  cb_call_assume_device(c);
  const int release = o->n > CB_HOLD_GIL_MAX_N || cb_on_cuda(c->m);
  PyThreadState* saved = release ? PyEval_SaveThread() : NULL;
  if (o->op <= OP_MUL) {
    status = cb_binary_fns[o->op - OP_ADD](o->dtype, o->x, o->y, o->out, o->n, stream);
  } else if (o->op == OP_DIV) {
    status = cubridge_div(o->dtype, o->x, o->y, o->out, o->n, o->scalar, stream);
  } else if (o->op == OP_AXPY) {
    status = cubridge_axpy_out(o->dtype, o->scalar, o->x, o->y, o->out, o->n, stream);
  } else if (o->op == OP_SCALE) {
    status = cubridge_scale_out(o->dtype, o->scalar, o->x, o->out, o->n, stream);
  } else if (o->op == OP_FILL) {
    status = cubridge_fill(o->dtype, o->scalar, o->out, o->n, stream);
  } else if (o->op == OP_CONVERT) {
    status = cubridge_convert(o->dtype, o->x, o->out_dtype, o->out, o->n, stream);
  } else if (o->op == OP_DOT) {
    status = cubridge_dot(o->dtype, o->x, o->y, o->n, o->out, stream);
  } else {
    status = cb_reduce_fns[o->op - OP_SUM](o->dtype, o->x, o->n, o->out, stream);
  }
  if (release) PyEval_RestoreThread(saved);
  return status;
}

/* Imports two inputs of one dtype and one shape. -1 with an error. */
static int cb_call_pair(cb_call* c, PyObject* a_obj, const char* a_name, PyObject* b_obj,
                        const char* b_name, cb_arg** a, cb_arg** b) {
  if ((*a = cb_call_arg(c, a_obj, a_name, CB_READ)) == NULL ||
      (*b = cb_call_arg(c, b_obj, b_name, CB_READ)) == NULL)
    return -1;
  return cb_same_dtype(c->m, *a, *b) < 0 || cb_same_shape(*a, *b) < 0 ? -1 : 0;
}

/* ---- add, sub, mul, div ----------------------------------------------- */

static PyObject* cb_binary(PyObject* m, int op, cb_args args, Py_ssize_t nargs) {
  static const char* const names[] = {"add", "sub", "mul", "div"};
  const int div = op == OP_DIV;
  double zero_value = 0.0;
  if (cb_nargs(names[op], nargs, 4 + div, 4 + div) < 0 ||
      (div && cb_real(args[2], "zero_value", &zero_value) < 0))
    return NULL;
  PyObject *a_obj = args[0], *b_obj = args[1], *out_obj = args[2 + div],
           *stream_obj = args[3 + div];
  cb_module* st = cb_module_of(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg *a, *b, *out;
  if (cb_call_pair(&c, a_obj, "a", b_obj, "b", &a, &b) < 0 ||
      (div && cb_int_scalar_exact(st, args[2], names[op], "zero_value", a->v.dtype) < 0) ||
      (out = cb_call_out(&c, out_obj, a, a->v.dtype)) == NULL)
    return cb_call_fail(&c);
  cb_op_args o = {op, a->v.dtype, 0, zero_value, a->v.data, b->v.data, out->v.data, a->v.n};
  return cb_call_end(&c, cb_run(&c, &o), NULL);
}

CB_OP_ENTRY(cb_add, cb_binary, OP_ADD)
CB_OP_ENTRY(cb_sub, cb_binary, OP_SUB)
CB_OP_ENTRY(cb_mul, cb_binary, OP_MUL)
CB_OP_ENTRY(cb_div, cb_binary, OP_DIV)

/* ---- axpy, scale, fill, astype ---------------------------------------- */

static PyObject* cb_axpy(PyObject* m, cb_args args, Py_ssize_t nargs) {
  double alpha;
  if (cb_nargs("axpy", nargs, 5, 5) < 0 || cb_real(args[0], "alpha", &alpha) < 0) return NULL;
  PyObject *x_obj = args[1], *y_obj = args[2], *out_obj = args[3], *stream_obj = args[4];
  cb_module* st = cb_module_of(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg *x, *y, *out;
  if (cb_call_pair(&c, x_obj, "x", y_obj, "y", &x, &y) < 0 ||
      cb_int_scalar_exact(st, args[0], "axpy", "alpha", x->v.dtype) < 0 ||
      (out = cb_call_out(&c, out_obj, y, y->v.dtype)) == NULL)
    return cb_call_fail(&c);
  /* One pass, x and y to out: out may be either of them or an array of its own
   * (cubridge_axpy_out refuses a partial overlap, as cubridge_add does). */
  cb_op_args o = {OP_AXPY, x->v.dtype, 0, alpha, x->v.data, y->v.data, out->v.data, x->v.n};
  return cb_call_end(&c, cb_run(&c, &o), NULL);
}

static PyObject* cb_scale(PyObject* m, cb_args args, Py_ssize_t nargs) {
  double alpha;
  if (cb_nargs("scale", nargs, 4, 4) < 0 || cb_real(args[1], "alpha", &alpha) < 0) return NULL;
  PyObject *x_obj = args[0], *out_obj = args[2], *stream_obj = args[3];
  cb_module* st = cb_module_of(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg *x, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", CB_READ)) == NULL ||
      cb_int_scalar_exact(st, args[1], "scale", "alpha", x->v.dtype) < 0 ||
      (out = cb_call_out(&c, out_obj, x, x->v.dtype)) == NULL)
    return cb_call_fail(&c);
  cb_op_args o = {OP_SCALE, x->v.dtype, 0, alpha, x->v.data, NULL, out->v.data, x->v.n};
  return cb_call_end(&c, cb_run(&c, &o), NULL);
}

static PyObject* cb_fill(PyObject* m, cb_args args, Py_ssize_t nargs) {
  double value;
  if (cb_nargs("fill", nargs, 3, 3) < 0 || cb_real(args[1], "value", &value) < 0) return NULL;
  PyObject *x_obj = args[0], *stream_obj = args[2];
  cb_module* st = cb_module_of(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg* x = cb_call_arg(&c, x_obj, "x", CB_WRITE);
  if (x == NULL || cb_int_scalar_exact(st, args[1], "fill", "value", x->v.dtype) < 0)
    return cb_call_fail(&c);
  c.result = Py_NewRef(x_obj);
  cb_op_args o = {OP_FILL, x->v.dtype, 0, value, NULL, NULL, x->v.data, x->v.n};
  return cb_call_end(&c, cb_run(&c, &o), NULL);
}

static PyObject* cb_astype(PyObject* m, cb_args args, Py_ssize_t nargs) {
  if (cb_nargs("astype", nargs, 4, 4) < 0) return NULL;
  PyObject *x_obj = args[0], *dtype_obj = args[1], *out_obj = args[2], *stream_obj = args[3];
  cb_module* st = cb_module_of(m);
  int dtype = -1;
  if (dtype_obj != Py_None && (dtype = cb_dtype_from_object(st, dtype_obj, "dtype")) < 0)
    return NULL;
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg *x, *out;
  if ((x = cb_call_arg(&c, x_obj, "x", CB_READ)) == NULL) return cb_call_fail(&c);
  if (dtype < 0) {
    if (out_obj == Py_None) {
      PyErr_SetString(PyExc_TypeError, "astype: give dtype, out, or both");
      return cb_call_fail(&c);
    }
    cb_arg* probe = cb_call_arg(&c, out_obj, "out", CB_WRITE);
    if (probe == NULL) return cb_call_fail(&c);
    dtype = probe->v.dtype;
  }
  if ((out = cb_call_out(&c, out_obj, x, dtype)) == NULL) return cb_call_fail(&c);
  if (out->v.data != x->v.data && cb_check_overlap(x, out) < 0) return cb_call_fail(&c);
  cb_op_args o = {OP_CONVERT, x->v.dtype, dtype, 0.0, x->v.data, NULL, out->v.data, x->v.n};
  return cb_call_end(&c, cb_run(&c, &o), NULL);
}

/* ---- copies ----------------------------------------------------------- */

/* copy(obj, memory, stream, device) -> a new cubridge.Array holding obj's data,
 * on `device` (None: the source's device for device memory, else the current). */
static PyObject* cb_copy(PyObject* m, cb_args args, Py_ssize_t nargs) {
  if (cb_nargs("copy", nargs, 3, 4) < 0) return NULL;
  PyObject *src_obj = args[0], *memory_obj = args[1], *stream_obj = args[2];
  PyObject* device_obj = nargs > 3 ? args[3] : Py_None;
  cb_module* st = cb_module_of(m);
  int kind = cb_parse_memory(st, memory_obj);
  if (kind < 0) return NULL;
  int device = cb_parse_device(st, device_obj);
  if (device < -1) return NULL;
  cb_call c;
  /* No stream: the default one (the copy may go to another device). */
  if (cb_call_begin(&c, st, stream_obj, 0) < 0) return cb_call_fail(&c);
  cb_arg *src, *dst;
  if ((src = cb_call_arg(&c, src_obj, "obj", CB_READ)) == NULL) return cb_call_fail(&c);
  if (device < 0 &&
      (src->v.memory == CUBRIDGE_MEMORY_DEVICE || src->v.memory == CUBRIDGE_MEMORY_MANAGED))
    device = src->v.device;
  if ((c.result = (PyObject*)cb_array_new(st, src->v.ndim, src->v.shape, src->v.dtype, kind, device,
                                          c.rt.stream)) == NULL ||
      (dst = cb_call_arg(&c, c.result, "out", CB_WRITE)) == NULL || cb_call_copy(&c, dst, src) < 0)
    return cb_call_fail(&c);
  return cb_call_end(&c, CUBRIDGE_OK, NULL);
}

/* copyto(dst, src, stream): dst[...] = src, same dtype and shape. */
static PyObject* cb_copyto(PyObject* m, cb_args args, Py_ssize_t nargs) {
  if (cb_nargs("copyto", nargs, 3, 3) < 0) return NULL;
  PyObject *dst_obj = args[0], *src_obj = args[1], *stream_obj = args[2];
  cb_module* st = cb_module_of(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg *src, *dst;
  if ((src = cb_call_arg(&c, src_obj, "src", CB_READ)) == NULL ||
      (dst = cb_call_arg(&c, dst_obj, "dst", CB_WRITE)) == NULL ||
      cb_same_dtype(st, src, dst) < 0 || cb_same_shape(src, dst) < 0 ||
      cb_call_copy(&c, dst, src) < 0)
    return cb_call_fail(&c);
  c.result = Py_NewRef(dst_obj);
  return cb_call_end(&c, CUBRIDGE_OK, NULL);
}

/* ---- reductions ------------------------------------------------------- */

static PyObject* cb_reduce(PyObject* m, int op, cb_args args, Py_ssize_t nargs) {
  static const char* const names[] = {"sum", "dot", "min", "max"};
  const int dot = op == OP_DOT;
  if (cb_nargs(names[op - OP_SUM], nargs, 2 + dot, 2 + dot) < 0) return NULL;
  PyObject *x_obj = args[0], *y_obj = dot ? args[1] : NULL, *stream_obj = args[1 + dot];
  cb_module* st = cb_module_of(m);
  cb_call c;
  if (cb_call_begin(&c, st, stream_obj, 1) < 0) return cb_call_fail(&c);
  cb_arg *x, *y = NULL;
  if ((x = cb_call_arg(&c, x_obj, "x", CB_READ)) == NULL) return cb_call_fail(&c);
  if (op == OP_DOT) {
    if ((y = cb_call_arg(&c, y_obj, "y", CB_READ)) == NULL) return cb_call_fail(&c);
    for (int i = 0; i < 2; i++) {
      const cubridge_view* v = i ? &y->v : &x->v;
      if (v->ndim != 1) {
        PyErr_Format(PyExc_ValueError, "dot: %s must be 1-D, got %d-D", v->name, v->ndim);
        return cb_call_fail(&c);
      }
    }
    if (cb_same_dtype(st, x, y) < 0 || cb_same_shape(x, y) < 0) return cb_call_fail(&c);
  }
  int rdtype = op == OP_MIN || op == OP_MAX ? x->v.dtype : cubridge_sum_dtype(x->v.dtype);
  if (rdtype < 0) {
    PyErr_SetString(PyExc_TypeError, "x: no result dtype for this dtype");
    return cb_call_fail(&c);
  }
  unsigned char result[16];
  memset(result, 0, sizeof result);
  cb_op_args o = {op, x->v.dtype, 0, 0.0, x->v.data, y ? y->v.data : NULL, result, x->v.n};
  cubridge_status status = cb_run(&c, &o);
  PyObject* value = NULL;
  if (status == CUBRIDGE_OK && (value = cb_scalar_to_python(st, rdtype, result)) == NULL)
    return cb_call_fail(&c);
  return cb_call_end(&c, status, value);
}

CB_OP_ENTRY(cb_sum, cb_reduce, OP_SUM)
CB_OP_ENTRY(cb_dot, cb_reduce, OP_DOT)
CB_OP_ENTRY(cb_min, cb_reduce, OP_MIN)
CB_OP_ENTRY(cb_max, cb_reduce, OP_MAX)

/* A METH_FASTCALL entry of a method table. */
#define CB_FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL

/* ---- cubridge.add & co.: the functions above with Python's signatures ---- */

/* The signature of op `fn` (params in the order fn takes them; its Python
 * name is fn's without the "cb_", hence #fn + 3) and its METH_FASTCALL |
 * METH_KEYWORDS entry `fn_kw`. */
#define CB_SIGNATURE(fn, npos, count, ...)                                                   \
  static const cb_signature fn##_signature = {#fn + 3, fn, npos, count, __VA_ARGS__};        \
  static PyObject* fn##_kw(PyObject* m, cb_args args, Py_ssize_t nargs, PyObject* kwnames) { \
    return cb_call_signature(m, &fn##_signature, args, nargs, kwnames);                      \
  }
#define CB_BINARY_PARAMS {CB_KW_a, CB_KW_b, CB_KW_out, CB_KW_stream}, {NULL, NULL, "None", "None"}

CB_SIGNATURE(cb_add, 2, 4, CB_BINARY_PARAMS)
CB_SIGNATURE(cb_sub, 2, 4, CB_BINARY_PARAMS)
CB_SIGNATURE(cb_mul, 2, 4, CB_BINARY_PARAMS)
CB_SIGNATURE(cb_div, 2, 5, {CB_KW_a, CB_KW_b, CB_KW_zero_value, CB_KW_out, CB_KW_stream},
             {NULL, NULL, "0.0", "None", "None"})
CB_SIGNATURE(cb_axpy, 3, 5, {CB_KW_alpha, CB_KW_x, CB_KW_y, CB_KW_out, CB_KW_stream},
             {NULL, NULL, NULL, "None", "None"})
CB_SIGNATURE(cb_scale, 2, 4, {CB_KW_x, CB_KW_alpha, CB_KW_out, CB_KW_stream},
             {NULL, NULL, "None", "None"})
CB_SIGNATURE(cb_fill, 2, 3, {CB_KW_x, CB_KW_value, CB_KW_stream}, {NULL, NULL, "None"})
CB_SIGNATURE(cb_copyto, 2, 3, {CB_KW_dst, CB_KW_src, CB_KW_stream}, {NULL, NULL, "None"})
CB_SIGNATURE(cb_sum, 1, 2, {CB_KW_x, CB_KW_stream}, {NULL, "None"})
CB_SIGNATURE(cb_dot, 2, 3, {CB_KW_x, CB_KW_y, CB_KW_stream}, {NULL, NULL, "None"})
CB_SIGNATURE(cb_min, 1, 2, {CB_KW_x, CB_KW_stream}, {NULL, "None"})
CB_SIGNATURE(cb_max, 1, 2, {CB_KW_x, CB_KW_stream}, {NULL, "None"})

#define CB_BINDABLE(fn) {&fn##_signature, (PyCFunction)(void (*)(void))(fn##_kw)}
static const struct {
  const cb_signature* sig;
  PyCFunction entry;
} cb_bindable[] = {
    CB_BINDABLE(cb_add),  CB_BINDABLE(cb_sub),   CB_BINDABLE(cb_mul),  CB_BINDABLE(cb_div),
    CB_BINDABLE(cb_axpy), CB_BINDABLE(cb_scale), CB_BINDABLE(cb_fill), CB_BINDABLE(cb_copyto),
    CB_BINDABLE(cb_sum),  CB_BINDABLE(cb_dot),   CB_BINDABLE(cb_min),  CB_BINDABLE(cb_max),
};

/* bind(name, module_name, doc): the op `name` as a builtin with its Python
 * signature, `doc` and __module__ module_name (cubridge/_ops.py). */
static PyObject* cb_bind(PyObject* m, cb_args args, Py_ssize_t nargs) {
  if (cb_nargs("bind", nargs, 3, 3) < 0) return NULL;
  for (size_t i = 0; i < sizeof cb_bindable / sizeof cb_bindable[0]; i++) {
    if (PyUnicode_Check(args[0]) &&
        PyUnicode_CompareWithASCIIString(args[0], cb_bindable[i].sig->name) == 0)
      return cb_signature_function(m, cb_bindable[i].sig, cb_bindable[i].entry, args[1], args[2]);
  }
  PyErr_Format(PyExc_ValueError, "bind: no op named %R", args[0]);
  return NULL;
}

static PyMethodDef cb_op_methods[] = {
    {"add", CB_FASTCALL(cb_add), "add($module, a, b, out, stream, /)\n--\n\n"},
    {"sub", CB_FASTCALL(cb_sub), "sub($module, a, b, out, stream, /)\n--\n\n"},
    {"mul", CB_FASTCALL(cb_mul), "mul($module, a, b, out, stream, /)\n--\n\n"},
    {"div", CB_FASTCALL(cb_div), "div($module, a, b, zero_value, out, stream, /)\n--\n\n"},
    {"axpy", CB_FASTCALL(cb_axpy), "axpy($module, alpha, x, y, out, stream, /)\n--\n\n"},
    {"scale", CB_FASTCALL(cb_scale), "scale($module, x, alpha, out, stream, /)\n--\n\n"},
    {"fill", CB_FASTCALL(cb_fill), "fill($module, x, value, stream, /)\n--\n\n"},
    {"astype", CB_FASTCALL(cb_astype), "astype($module, x, dtype, out, stream, /)\n--\n\n"},
    {"copy", CB_FASTCALL(cb_copy),
     "copy($module, obj, memory, stream, device=None, /)\n--\n\nReturns Array."},
    {"copyto", CB_FASTCALL(cb_copyto), "copyto($module, dst, src, stream, /)\n--\n\nReturns dst."},
    {"sum", CB_FASTCALL(cb_sum), "sum($module, x, stream, /)\n--\n\n"},
    {"dot", CB_FASTCALL(cb_dot), "dot($module, x, y, stream, /)\n--\n\n"},
    {"min", CB_FASTCALL(cb_min), "min($module, x, stream, /)\n--\n\n"},
    {"max", CB_FASTCALL(cb_max), "max($module, x, stream, /)\n--\n\n"},
    {"bind", CB_FASTCALL(cb_bind),
     "bind($module, name, module_name, doc, /)\n--\n\nReturns the op with its signature."},
    {NULL, NULL, 0, NULL}};

int cb_ops_init(PyObject* module, cb_module* m) {
  (void)m;
  return PyModule_AddFunctions(module, cb_op_methods);
}
