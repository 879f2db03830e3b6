/*
 * cubridge's C API for other CPython extensions (added in 0.2, issue 44), the way NumPy
 * exports its C API: cubridge's extension (cubridge._native) puts a table of
 * functions in the capsule cubridge._native._C_API, and an extension of your
 * own imports it at load time (cubridge_py_import below). It links nothing of
 * cubridge: every call goes through the table, into the one cubridge library
 * of the process, with cubridge's whole argument path: NumPy, torch, CuPy and
 * JAX arrays, cubridge.Array, anything with __dlpack__,
 * __cuda_array_interface__ or the buffer protocol; checks with messages that
 * name the argument; the arrays' device; the stream (stream=, else the first
 * array's producer's); the GIL released while the kernel runs; results as
 * cubridge.Array / numpy.ndarray, or the caller's library's array.
 *
 * The generated extension of a declared kernel (docs/bind.md) is all this
 * header needs to be used for:
 *
 *   static const cubridge_py_api* api;                     // set at import
 *   static PyObject* saxpy(PyObject* m, PyObject* const* args, Py_ssize_t n, PyObject* kw) {
 *     return api->call(api, &saxpy_kernel, args, n, kw);    // cubridge/bind.h's kernel
 *   }
 *   ... in the module's exec slot: api = cubridge_py_import(); if (!api) return -1;
 *
 * Versioned like the C ABI: the table starts with its size and version, and
 * later versions only append functions; cubridge_py_import refuses a table
 * older than this header's.
 */
#ifndef CUBRIDGE_PYTHON_H_
#define CUBRIDGE_PYTHON_H_

#include <Python.h>

#include "cubridge/bind.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUBRIDGE_PY_API_VERSION 1
#define CUBRIDGE_PY_API_CAPSULE "cubridge._native._C_API"

typedef struct cubridge_py_api {
  size_t struct_size; /* sizeof(cubridge_py_api) of the exporting cubridge */
  int version;        /* CUBRIDGE_PY_API_VERSION of the exporting cubridge */
  int library;        /* cubridge_version() of its library */
  /* Calls `kernel` with Python's arguments as a METH_FASTCALL | METH_KEYWORDS
   * function gets them: the declared parameters positionally or by keyword
   * (out arrays by keyword only, default None: allocated), and stream= (by
   * keyword only). Returns the out arrays (one, or a tuple), else the inout
   * arrays, else None; NULL with an exception (cubridge.Error's subclass of
   * the status, a TypeError for bad Python arguments). */
  PyObject* (*call)(const struct cubridge_py_api* api, const cubridge_kernel* kernel,
                    PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
} cubridge_py_api;

/* Imports cubridge._native and returns its table, or NULL with ImportError
 * (cubridge missing, or older than this header). Call it once, in the
 * module's init or exec slot; the table lives as long as the interpreter. */
static inline const cubridge_py_api* cubridge_py_import(void) {
  const cubridge_py_api* api = (const cubridge_py_api*)PyCapsule_Import(CUBRIDGE_PY_API_CAPSULE, 0);
  if (api == NULL) return NULL;
  if (api->version < CUBRIDGE_PY_API_VERSION ||
      api->struct_size < offsetof(cubridge_py_api, call) + sizeof api->call) {
    PyErr_Format(PyExc_ImportError,
                 "cubridge's C API is version %d, this extension needs version %d or later: "
                 "upgrade cubridge",
                 api->version, CUBRIDGE_PY_API_VERSION);
    return NULL;
  }
  return api;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CUBRIDGE_PYTHON_H_ */
