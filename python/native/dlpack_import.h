/* Importing an array argument through __dlpack__ (consumer side). */
#ifndef CUBRIDGE_CEXT_DLPACK_IMPORT_H_
#define CUBRIDGE_CEXT_DLPACK_IMPORT_H_

#include "arg.h"
#include "dlpack.h"

/* obj.__dlpack_device__() into *type / *id (kDLCPU, 0 when obj has none).
 * -1 with an exception when the call fails, or TypeError naming the argument
 * `name` when it returns anything but a 2-tuple of ints. */
int cb_dlpack_query_device(const cb_module* m, PyObject* obj, const char* name, int32_t* type,
                           int32_t* id);

/* Calls obj.__dlpack__ once (max_version=(1, 0); for a CUDA producer, whose
 * device `dev_type` says, also stream=`consumer`, the call's stream by its
 * DLPack number: the producer orders its work for it), takes the capsule and
 * fills `a` (the tensor is deleted in cb_arg_release). -1 with an error. */
int cb_import_dlpack(const cb_module* m, PyObject* obj, int32_t dev_type, uintptr_t consumer,
                     cb_arg* a);

/* Fills `a`'s dtype, shape, strides, data and memory from `t`. -1 with
 * ValueError when the device type is neither CPU nor CUDA. */
int cb_arg_from_dltensor(const cb_module* m, const DLTensor* t, cb_arg* a);

#endif /* CUBRIDGE_CEXT_DLPACK_IMPORT_H_ */
