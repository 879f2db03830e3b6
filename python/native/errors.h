/* cubridge.Error and one subclass per status of the C ABI; raising them. */
#ifndef CUBRIDGE_CEXT_ERRORS_H_
#define CUBRIDGE_CEXT_ERRORS_H_

#include "state.h"

/* Creates the exception classes (one per cubridge_status_name) into the state
 * and adds them to `module`. */
int cb_errors_init(PyObject* module, cb_state* st);
/* Raises the class of `status` with cubridge_last_error(); returns NULL. */
PyObject* cb_raise_status(cb_state* st, cubridge_status status);
/* None when `status` is CUBRIDGE_OK, else cb_raise_status's NULL. */
PyObject* cb_none_or_raise(cb_state* st, cubridge_status status);
/* Raises TypeError "<argname> must be <wanted>, got <type of got>"; returns NULL. */
PyObject* cb_type_error(const char* argname, const char* wanted, PyObject* got);

#endif /* CUBRIDGE_CEXT_ERRORS_H_ */
