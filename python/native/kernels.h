/* Declared kernels of other extensions: the C API capsule
 * cubridge._native._C_API (cubridge/python.h) and the call behind it. */
#ifndef CUBRIDGE_CEXT_KERNELS_H_
#define CUBRIDGE_CEXT_KERNELS_H_

#include "common.h"

/* Adds the capsule to `module`. */
int cb_kernels_init(PyObject* module, cb_module* m);

#endif /* CUBRIDGE_CEXT_KERNELS_H_ */
