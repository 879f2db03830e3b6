/* The Python type cubridge.Array (attributes, methods, protocols). */
#ifndef CUBRIDGE_CEXT_ARRAY_TYPE_H_
#define CUBRIDGE_CEXT_ARRAY_TYPE_H_

#include "state.h"

/* Creates the type into st->array_type and adds it to `module`. */
int cb_array_type_init(PyObject* module, cb_state* st);

#endif /* CUBRIDGE_CEXT_ARRAY_TYPE_H_ */
