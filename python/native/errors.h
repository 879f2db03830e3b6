/* cubridge.Error and one subclass per status of the C ABI; raising them. */
#ifndef CUBRIDGE_CEXT_ERRORS_H_
#define CUBRIDGE_CEXT_ERRORS_H_

#include "common.h"

typedef struct cb_errors {
  PyObject* base;                     /* cubridge.Error */
  PyObject* classes[CB_MAX_STATUSES]; /* the class of each status (NULL for OK) */
  int count;                          /* cubridge_status_count() */
} cb_errors;

/* Creates the classes (one per cubridge_status_name) and adds them to `module`. */
int cb_errors_init(PyObject* module, cb_module* m);
int cb_errors_traverse(cb_module* m, visitproc visit, void* arg);
void cb_errors_clear(cb_module* m);

/* Raises the class of `status` with cubridge_last_error(); returns NULL.
 * Call it before any other cubridge call: the message lasts until the next. */
PyObject* cb_raise_status(cb_module* m, cubridge_status status);
/* None when `status` is CUBRIDGE_OK, else cb_raise_status's NULL. */
PyObject* cb_none_or_raise(cb_module* m, cubridge_status status);
/* 0, or -1 with the status raised. */
int cb_check(cb_module* m, cubridge_status status);
/* Raises TypeError "<argname> must be <wanted>, got <type of got>"; returns NULL. */
PyObject* cb_type_error(const char* argname, const char* wanted, PyObject* got);
/* Raises `cls` naming the status INVALID_ARGUMENT's class (a ValueError). */
PyObject* cb_invalid(cb_module* m, const char* message);

#endif /* CUBRIDGE_CEXT_ERRORS_H_ */
