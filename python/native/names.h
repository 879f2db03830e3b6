/* Attribute and keyword names the readers look up on every call, interned
 * once: a lookup by an interned str skips hashing it again. */
#ifndef CUBRIDGE_CEXT_NAMES_H_
#define CUBRIDGE_CEXT_NAMES_H_

#include "common.h"

/* One name a line: clang-format reflows this list differently on each pass. */
// clang-format off
#define CB_NAMES(X)                                 \
  X(dlpack, "__dlpack__")                           \
  X(dlpack_device, "__dlpack_device__")             \
  X(cai, "__cuda_array_interface__")                \
  X(shape, "shape")                                 \
  X(typestr, "typestr")                             \
  X(data, "data")                                   \
  X(strides, "strides")                             \
  X(mask, "mask")                                   \
  X(stream, "stream")                               \
  X(max_version, "max_version")                     \
  X(handle, "_handle")                              \
  X(cuda_stream_proto, "__cuda_stream__")           \
  X(ptr, "ptr")                                     \
  X(cuda_stream, "cuda_stream")                     \
  X(device_id, "device_id")                         \
  X(dtype, "dtype")                                 \
  X(str, "str")
// clang-format on

typedef struct cb_names {
#define CB_NAME_FIELD(field, text) PyObject* field;
  CB_NAMES(CB_NAME_FIELD)
#undef CB_NAME_FIELD
  PyObject* dlpack_version; /* (1, 0): the max_version cubridge asks producers for */
} cb_names;

int cb_names_init(PyObject* module, cb_module* m);
int cb_names_traverse(cb_module* m, visitproc visit, void* arg);
void cb_names_clear(cb_module* m);

#endif /* CUBRIDGE_CEXT_NAMES_H_ */
