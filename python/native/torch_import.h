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

/* Fills `v` from the tensor `obj` (kept alive in v->keep). Neither way says
 * when the data is ready: the caller orders the op after torch's current
 * stream (cb_torch_current_stream), as torch's __dlpack__(stream=) would. */
int cb_import_torch(cb_state* st, PyObject* obj, cb_view* v);

/* torch's current stream of CUDA device `device` (0: the legacy default
 * stream): through the exchange table when torch has it (a C call), else
 * torch.cuda.current_stream(device). -1 with an exception. */
int cb_torch_current_stream(cb_state* st, int device, uintptr_t* handle);

#endif /* CUBRIDGE_CEXT_TORCH_IMPORT_H_ */
