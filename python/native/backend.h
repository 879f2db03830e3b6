/* Which backend the library runs (CPU threads or CUDA), asked once. */
#ifndef CUBRIDGE_CEXT_BACKEND_H_
#define CUBRIDGE_CEXT_BACKEND_H_

#include "common.h"

typedef struct cb_backend {
  int kind;         /* CUBRIDGE_BACKEND_*, -1 until asked */
  int device_count; /* asked with the backend; 0 until then */
} cb_backend;

int cb_backend_init(PyObject* module, cb_module* m);
/* The backend in use (CUBRIDGE_BACKEND_*), -1 with an exception set. Chosen by
 * the library at its first use, not at import. */
int cb_backend_kind(cb_module* m);
/* 1 when the CUDA backend is in use; errors count as no (and are cleared). */
int cb_on_cuda(cb_module* m);
/* Visible CUDA devices (0 on the CPU backend). */
int cb_device_count(cb_module* m);

#endif /* CUBRIDGE_CEXT_BACKEND_H_ */
