/* Which backend the library runs (CPU threads or CUDA), asked once. */
#ifndef CUBRIDGE_CEXT_BACKEND_H_
#define CUBRIDGE_CEXT_BACKEND_H_

#include "state.h"

/* The backend in use (CUBRIDGE_BACKEND_*), -1 with an exception set. Chosen by
 * the library at its first use, not at import. */
int cb_backend(cb_state* st);
/* 1 when the CUDA backend is in use; errors count as no (and are cleared). */
int cb_on_cuda(cb_state* st);

#endif /* CUBRIDGE_CEXT_BACKEND_H_ */
