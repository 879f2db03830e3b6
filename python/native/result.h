/* New result arrays of ops called without out=. */
#ifndef CUBRIDGE_CEXT_RESULT_H_
#define CUBRIDGE_CEXT_RESULT_H_

#include "view.h"

/* A new result like `proto` with `dtype`: a cubridge.Array of the same memory
 * kind and device for an Array, a device (managed) Array for device (managed)
 * memory of other libraries, allocated on the op's `stream` (handle `handle`;
 * `may_unpark` as cb_array_new's); a numpy.ndarray for host memory. */
PyObject* cb_new_result(cb_state* st, const cb_view* proto, int dtype, uintptr_t handle,
                        cubridge_stream stream, int may_unpark);

#endif /* CUBRIDGE_CEXT_RESULT_H_ */
