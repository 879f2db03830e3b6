/* The ops of the C ABI as functions of cubridge._native. */
#ifndef CUBRIDGE_CEXT_OPS_H_
#define CUBRIDGE_CEXT_OPS_H_

#include "common.h"

/* Adds add, sub, ..., sum, dot, min, max to `module`. */
int cb_ops_init(PyObject* module, cb_module* m);

#endif /* CUBRIDGE_CEXT_OPS_H_ */
