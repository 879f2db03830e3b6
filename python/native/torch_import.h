/* Importing a torch.Tensor through its C accessors (data_ptr(), dtype, shape,
 * is_contiguous(), device) rather than __cuda_array_interface__, a property
 * torch computes in Python on every access (about 5 us). */
#ifndef CUBRIDGE_CEXT_TORCH_IMPORT_H_
#define CUBRIDGE_CEXT_TORCH_IMPORT_H_

#include "view.h"

/* Returned (no exception set) when the tensor needs torch's own protocols:
 * it requires grad, is not strided (sparse), or lives on a device other than
 * the CPU and CUDA. The caller then uses the generic path, whose errors are
 * torch's. */
#define CB_TORCH_GENERIC (-2)

/* Fills `v` from the tensor `obj` (kept alive in v->keep). Like torch's
 * __cuda_array_interface__ (version 2), a tensor names no stream. */
int cb_import_torch(cb_state* st, PyObject* obj, cb_view* v);

#endif /* CUBRIDGE_CEXT_TORCH_IMPORT_H_ */
