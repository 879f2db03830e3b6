/* NCCL communicators (cubridge/comm.h) for cubridge/_comm.py. */
#ifndef CUBRIDGE_CEXT_COMM_H_
#define CUBRIDGE_CEXT_COMM_H_

#include "common.h"

/* Adds the _comm_* and _nccl_* functions to `module`. */
int cb_comm_init(PyObject* module, cb_module* m);

#endif /* CUBRIDGE_CEXT_COMM_H_ */
