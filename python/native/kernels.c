/* Declared kernels of other extensions (cubridge/python.h): the capsule
 * cubridge._native._C_API and the one call behind it, which gives a kernel
 * the path cubridge's own ops take (readers, checks, stream, device, GIL,
 * results) and the binding ABI's checks of its declaration (cubridge/bind.h). */
#include "kernels.h"

#include <string.h>

#include "array.h"
#include "backend.h"
#include "call.h"
#include "cubridge/python.h"
#include "errors.h"
#include "known_types.h"
#include "module.h"
#include "results.h"

/* Elements up to which a CPU-backend kernel runs with the GIL held (as ops.c). */
#define CB_KERNEL_HOLD_GIL_MAX_N 4096

/* The table and the module whose state its calls use. */
typedef struct cb_capsule {
  cubridge_py_api api;
  cb_module* m;
} cb_capsule;

static int cb_is_array_param(int kind) {
  return kind == CUBRIDGE_PARAM_IN || kind == CUBRIDGE_PARAM_OUT || kind == CUBRIDGE_PARAM_INOUT;
}

/* Python's arguments into slots[param] (slots[nparams]: stream) as Python maps
 * them: the parameters other than out arrays positionally, in order, or by
 * keyword; out arrays and stream by keyword only. -1 with a TypeError. */
static int cb_kernel_slots(const cubridge_kernel* k, PyObject* const* args, Py_ssize_t nargs,
                           PyObject* kwnames, PyObject** slots) {
  int positional[CUBRIDGE_KERNEL_MAX_PARAMS], npos = 0;
  for (int p = 0; p < k->nparams; p++) {
    if (k->params[p].kind != CUBRIDGE_PARAM_OUT) positional[npos++] = p;
  }
  if (nargs > npos) {
    PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given", k->name,
                 npos, npos == 1 ? "" : "s", nargs);
    return -1;
  }
  for (Py_ssize_t i = 0; i < nargs; i++) slots[positional[i]] = args[i];
  const Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
  for (Py_ssize_t i = 0; i < nkw; i++) {
    PyObject* kw = PyTuple_GetItem(kwnames, i); /* borrowed */
    int slot = -1;
    if (PyUnicode_CompareWithASCIIString(kw, "stream") == 0) slot = k->nparams;
    for (int p = 0; slot < 0 && p < k->nparams; p++) {
      if (PyUnicode_CompareWithASCIIString(kw, k->params[p].name) == 0) slot = p;
    }
    if (slot < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", k->name, kw);
      return -1;
    }
    if (slots[slot] != NULL) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", k->name, kw);
      return -1;
    }
    slots[slot] = args[nargs + i];
  }
  for (int i = 0; i < npos; i++) {
    if (slots[positional[i]] == NULL) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", k->name,
                   k->params[positional[i]].name);
      return -1;
    }
  }
  return 0;
}

/* A scalar argument as its parameter's kind says. -1 with an error. */
static int cb_kernel_scalar(cb_module* m, const cubridge_kernel* k, int p, PyObject* obj,
                            cubridge_kernel_call_state* state) {
  const cubridge_kernel_param* param = &k->params[p];
  cubridge_scalar v;
  if (param->kind == CUBRIDGE_PARAM_FLOAT) {
    if (cb_real(obj, param->name, &v.f) < 0) return -1;
  } else {
    if (!PyIndex_Check(obj) || PyBool_Check(obj)) {
      cb_type_error(param->name, "an int", obj);
      return -1;
    }
    PyObject* i = PyNumber_Index(obj);
    if (i == NULL) return -1;
    int overflow = 0;
    v.i = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v.i == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
      PyErr_Format(PyExc_OverflowError, "%s is outside int64's range", param->name);
      return -1;
    }
  }
  return cb_check(m, cubridge_kernel_scalar(state, p, v));
}

/* `result` as the array of `proto`'s library (torch, CuPy, JAX), through
 * DLPack; itself when that library is NumPy's or cubridge's. Steals result. */
static PyObject* cb_as_callers(cb_module* m, PyObject* proto, PyObject* result) {
  if (!cb_array_is(m, result)) return result; /* a numpy.ndarray for host inputs */
  const char* module = NULL;
  switch (cb_type_hint_of(m, Py_TYPE(proto))->known) {
    case CB_KNOWN_TORCH:
      module = "torch";
      break;
    case CB_KNOWN_CUPY:
      module = "cupy";
      break;
    default: {
      PyObject* name = PyObject_GetAttrString((PyObject*)Py_TYPE(proto), "__module__");
      const char* text =
          name != NULL && PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
      if (text != NULL && (strncmp(text, "jax", 3) == 0)) module = "jax.numpy";
      Py_XDECREF(name);
      PyErr_Clear();
    }
  }
  if (module == NULL || cb_array_is(m, proto)) return result;
  PyObject* lib = PyImport_ImportModule(module);
  PyObject* converted = lib ? PyObject_CallMethod(lib, "from_dlpack", "O", result) : NULL;
  Py_XDECREF(lib);
  Py_DECREF(result);
  return converted;
}

/* What the call returns: the out arrays, else the inout ones (one, or a
 * tuple, in declared order), else None. Takes the references in written[]
 * (by parameter; NULL for the rest). */
static PyObject* cb_kernel_value(const cubridge_kernel* k, PyObject** written) {
  int outs = 0;
  for (int p = 0; p < k->nparams; p++) outs += k->params[p].kind == CUBRIDGE_PARAM_OUT;
  const int want = outs > 0 ? CUBRIDGE_PARAM_OUT : CUBRIDGE_PARAM_INOUT;
  PyObject* objs[CUBRIDGE_KERNEL_MAX_PARAMS];
  int count = 0;
  for (int p = 0; p < k->nparams; p++) {
    if (written[p] == NULL) continue;
    if (k->params[p].kind == want) {
      objs[count++] = written[p];
    } else {
      Py_DECREF(written[p]);
    }
  }
  if (count == 0) Py_RETURN_NONE;
  if (count == 1) return objs[0];
  PyObject* t = PyTuple_New(count);
  for (int i = 0; i < count; i++) {
    if (t == NULL) {
      Py_DECREF(objs[i]);
    } else {
      PyTuple_SetItem(t, i, objs[i]);
    }
  }
  return t;
}

/* The array argument `p`: the one given, or a new result (out arrays not
 * given), read into the call and checked against the declaration. NULL with
 * an error. Sets written[p] (owned) for out and inout arrays. */
static cb_arg* cb_kernel_array(cb_module* m, const cubridge_kernel* k, int p, PyObject* given,
                               cb_call* c, cubridge_kernel_call_state* state, cb_arg* proto,
                               PyObject* proto_obj, PyObject** written) {
  const cubridge_kernel_param* param = &k->params[p];
  PyObject* obj = given;
  if (obj == NULL || obj == Py_None) {
    int dtype, ndim;
    int64_t shape[CUBRIDGE_KERNEL_MAX_NDIM];
    if (cb_check(m, cubridge_kernel_result(state, p, &dtype, &ndim, shape)) < 0) return NULL;
    obj = cb_new_result_shaped(m, proto, ndim, shape, dtype, c->rt.stream);
    /* Converted now: the import below reads the caller's array. */
    if (obj != NULL && k->result == CUBRIDGE_RESULT_CALLER && proto_obj != NULL)
      obj = cb_as_callers(m, proto_obj, obj);
    if (obj == NULL) return NULL;
  } else {
    Py_INCREF(obj);
  }
  const int in = param->kind == CUBRIDGE_PARAM_IN;
  if (!in) written[p] = obj;
  cb_arg* a = cb_call_arg(c, obj, param->name, in ? CUBRIDGE_ACCESS_READ : CUBRIDGE_ACCESS_WRITE);
  if (in) Py_DECREF(obj); /* the argument keeps it */
  if (a == NULL || cb_check(m, cubridge_kernel_array(state, p, &a->v)) < 0) return NULL;
  return a;
}

static PyObject* cb_kernel_call(const cubridge_py_api* api, const cubridge_kernel* k,
                                PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  cb_module* m = ((const cb_capsule*)api)->m;
  PyObject* slots[CUBRIDGE_KERNEL_MAX_PARAMS + 1] = {NULL};
  cubridge_kernel_call_state state;
  state.struct_size = sizeof state;
  if (cb_check(m, cubridge_kernel_begin(&state, k)) < 0) return NULL;
  if (cb_kernel_slots(k, args, nargs, kwnames, slots) < 0) return NULL;
  for (int p = 0; p < k->nparams; p++) {
    if (!cb_is_array_param(k->params[p].kind) && cb_kernel_scalar(m, k, p, slots[p], &state) < 0)
      return NULL;
  }
  cb_call c;
  if (cb_call_begin(&c, m, slots[k->nparams], 1) < 0) return cb_call_fail(&c);
  PyObject* written[CUBRIDGE_KERNEL_MAX_PARAMS] = {NULL}; /* owned */
  cb_arg* proto = NULL; /* the first array argument: results are made like it */
  PyObject* proto_obj = NULL;
  size_t elements = 0;
  /* The arrays given, in order; then the out arrays not given, allocated. */
  for (int pass = 0; pass < 2; pass++) {
    for (int p = 0; p < k->nparams; p++) {
      PyObject* given = slots[p] == Py_None ? NULL : slots[p];
      if (!cb_is_array_param(k->params[p].kind) || (pass == 0) != (given != NULL)) continue;
      cb_arg* a = cb_kernel_array(m, k, p, given, &c, &state, proto, proto_obj, written);
      if (a == NULL) {
        for (int i = 0; i < k->nparams; i++) Py_XDECREF(written[i]);
        return cb_call_fail(&c);
      }
      if (proto == NULL) {
        proto = a;
        proto_obj = given;
      }
      elements += a->v.n;
    }
  }
  /* Device work always releases the GIL (a launch may wait for the queue);
   * small host work keeps it, as cubridge's ops do. */
  const int release = elements > CB_KERNEL_HOLD_GIL_MAX_N || cb_on_cuda(m);
  PyThreadState* saved = release ? PyEval_SaveThread() : NULL;
  cubridge_status status = cubridge_kernel_launch(&state, &c.rt);
  if (release) PyEval_RestoreThread(saved);
  return cb_call_end(&c, status, cb_kernel_value(k, written));
}

static void cb_capsule_free(PyObject* capsule) {
  PyMem_Free(PyCapsule_GetPointer(capsule, CUBRIDGE_PY_API_CAPSULE));
}

int cb_kernels_init(PyObject* module, cb_module* m) {
  cb_capsule* table = PyMem_Calloc(1, sizeof *table);
  if (table == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  table->api.struct_size = sizeof table->api;
  table->api.version = CUBRIDGE_PY_API_VERSION;
  table->api.library = cubridge_version();
  table->api.call = cb_kernel_call;
  table->m = m;
  PyObject* capsule = PyCapsule_New(table, CUBRIDGE_PY_API_CAPSULE, cb_capsule_free);
  if (capsule == NULL) {
    PyMem_Free(table);
    return -1;
  }
  const int rc = PyModule_AddObjectRef(module, "_C_API", capsule);
  Py_DECREF(capsule);
  return rc;
}
