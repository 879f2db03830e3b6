/* Importing an array argument through __dlpack__ (consumer side). */
#ifndef CUBRIDGE_CEXT_DLPACK_IMPORT_H_
#define CUBRIDGE_CEXT_DLPACK_IMPORT_H_

#include "view.h"

/* obj.__dlpack_device__() into *type / *id (kDLCPU, 0 when obj has none).
 * -1 with an exception when the call fails or returns no 2-tuple. */
int cb_dlpack_query_device(const cb_state* st, PyObject* obj, int32_t* type, int32_t* id);

/* Calls obj.__dlpack__ once (max_version=(1, 0); for a CUDA producer, whose
 * device `dev_type` says, also stream=`stream`, the op's stream by its DLPack
 * number), takes the capsule and fills `v` (the tensor is deleted in
 * cb_view_release). -1 with an error. */
int cb_import_dlpack(const cb_state* st, PyObject* obj, int32_t dev_type, uintptr_t stream,
                     cb_view* v);

/* Fills `v`'s dtype, shape, strides, data and memory from `t`. -1 with
 * ValueError when the device type is neither CPU nor CUDA. */
int cb_view_from_dltensor(const cb_state* st, const DLTensor* t, cb_view* v);

#endif /* CUBRIDGE_CEXT_DLPACK_IMPORT_H_ */
