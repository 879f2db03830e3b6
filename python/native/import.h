/* Importing any array argument: picks the protocol, fills the one view,
 * validates it, orders the producer's stream before the op's. */
#ifndef CUBRIDGE_CEXT_IMPORT_H_
#define CUBRIDGE_CEXT_IMPORT_H_

#include "view.h"

/* Imports `obj` as a C-contiguous array argument named `name` into `v`.
 * `writable` demands write access (out=). `stream` is the op's stream handle:
 * given to __dlpack__ producers, ordered after __cuda_array_interface__ streams
 * and pending cubridge work on an Array. On failure `v` is released. */
int cb_import(cb_state* st, PyObject* obj, const char* name, int writable, uintptr_t stream,
              cb_view* v);

#endif /* CUBRIDGE_CEXT_IMPORT_H_ */
