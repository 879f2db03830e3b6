/* Importing an array argument through __cuda_array_interface__ (v2 and v3). */
#ifndef CUBRIDGE_CEXT_CAI_IMPORT_H_
#define CUBRIDGE_CEXT_CAI_IMPORT_H_

#include "view.h"

/* Returned (no exception set) for a typestr only DLPack can describe, such as
 * torch's "<V2" for bfloat16, when the object also has __dlpack__. */
#define CB_TRY_DLPACK (-2)

/* Fills `v` from the interface dict `cai` of `obj` (kept alive in v->keep).
 * *stream gets the producer's stream (0: none given; v3 forbids 0 itself). */
int cb_import_cai(const cb_state* st, PyObject* obj, PyObject* cai, cb_view* v, uintptr_t* stream);

#endif /* CUBRIDGE_CEXT_CAI_IMPORT_H_ */
