/*
 * Python signatures for the ops' METH_FASTCALL functions, so that cubridge.add
 * and the others are the C functions themselves, with keyword arguments, a
 * text signature and the docstring of cubridge/_ops.py: a Python-level wrapper
 * per op cost 25-45 ns a call (of 270 ns for a small CPU-backend add).
 */
#ifndef CUBRIDGE_CEXT_SIGNATURE_H_
#define CUBRIDGE_CEXT_SIGNATURE_H_

#include "common.h"
#include "keywords.h"

#define CB_MAX_PARAMS 6

/* The parameter names, interned: a keyword argument is found by pointer (a
 * string compare per parameter cost 20 ns a call). */
typedef struct cb_keywords {
  PyObject* names[CB_KW_COUNT];
} cb_keywords;

int cb_keywords_init(PyObject* module, cb_module* m);
int cb_keywords_traverse(cb_module* m, visitproc visit, void* arg);
void cb_keywords_clear(cb_module* m);

typedef PyObject* (*cb_fastcall)(PyObject* module, PyObject* const* args, Py_ssize_t nargs);

typedef struct cb_signature {
  const char* name;
  cb_fastcall impl;                    /* takes every parameter positionally, in `params` order */
  int npos;                            /* params[0, npos): positional or keyword, required */
  int count;                           /* params in all; the rest are keyword-only ... */
  int params[CB_MAX_PARAMS];           /* CB_KW_* ids */
  const char* defaults[CB_MAX_PARAMS]; /* ... with these defaults: "None" or a float */
} cb_signature;

/* sig->impl(module, every parameter in order): positional and keyword
 * arguments mapped as Python maps them, with Python's TypeErrors. */
PyObject* cb_call_signature(PyObject* module, const cb_signature* sig, PyObject* const* args,
                            Py_ssize_t nargs, PyObject* kwnames);

/* A new builtin function for `sig` whose __doc__ is `doc` behind the text
 * signature "name($module, a, b, /, *, out=None, stream=None)" and whose
 * __module__ is `module_name`. `entry` is the METH_FASTCALL | METH_KEYWORDS
 * function that calls cb_call_signature with `sig`. Each call allocates a
 * method definition that is never freed: the function may outlive every
 * module. */
PyObject* cb_signature_function(PyObject* module, const cb_signature* sig, PyCFunction entry,
                                PyObject* module_name, PyObject* doc);

#endif /* CUBRIDGE_CEXT_SIGNATURE_H_ */
