/* The Python type cubridge.Array (attributes, methods, protocols). */
#ifndef CUBRIDGE_CEXT_ARRAY_TYPE_H_
#define CUBRIDGE_CEXT_ARRAY_TYPE_H_

#include "common.h"

/* Creates the type and the memory-kind names, and adds the type to `module`. */
int cb_arrays_init(PyObject* module, cb_module* m);
int cb_arrays_traverse(cb_module* m, visitproc visit, void* arg);
void cb_arrays_clear(cb_module* m);

#endif /* CUBRIDGE_CEXT_ARRAY_TYPE_H_ */
