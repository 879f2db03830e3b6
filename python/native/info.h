/* Library-state functions of cubridge._native: backend, version, devices,
 * memory, synchronize, the dtype table. */
#ifndef CUBRIDGE_CEXT_INFO_H_
#define CUBRIDGE_CEXT_INFO_H_

#include "common.h"

/* Adds the functions and the constants (__version__, MAX_NDIM, DTYPES) to `module`. */
int cb_info_init(PyObject* module, cb_module* m);

#endif /* CUBRIDGE_CEXT_INFO_H_ */
