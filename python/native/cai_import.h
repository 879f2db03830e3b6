/* Importing an array argument through __cuda_array_interface__ (v2 and v3). */
#ifndef CUBRIDGE_CEXT_CAI_IMPORT_H_
#define CUBRIDGE_CEXT_CAI_IMPORT_H_

#include "arg.h"

/* Returned (no exception set) for a typestr only DLPack can describe, such as
 * torch's "<V2" for bfloat16, when the object also has __dlpack__. */
#define CB_TRY_DLPACK (-2)

/* Fills `a` from the interface dict `cai` of `obj` (kept alive in a->keep):
 * CUDA memory (the runtime asks which kind), its producer's stream (v3).
 * -1 with an error naming the argument. */
int cb_import_cai(const cb_module* m, PyObject* obj, PyObject* cai, cb_arg* a);

#endif /* CUBRIDGE_CEXT_CAI_IMPORT_H_ */
