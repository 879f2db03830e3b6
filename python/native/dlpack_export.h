/* cubridge.Array.__dlpack__ and __dlpack_device__ (producer side). */
#ifndef CUBRIDGE_CEXT_DLPACK_EXPORT_H_
#define CUBRIDGE_CEXT_DLPACK_EXPORT_H_

#include "array.h"

PyObject* cb_dlpack_export(cb_array* self, PyObject* args, PyObject* kwds);
PyObject* cb_dlpack_device(cb_array* self, PyObject* unused);

#endif /* CUBRIDGE_CEXT_DLPACK_EXPORT_H_ */
