/* New result arrays: a cubridge.Array like a device argument, a numpy.ndarray
 * like a host one. */
#ifndef CUBRIDGE_CEXT_RESULTS_H_
#define CUBRIDGE_CEXT_RESULTS_H_

#include "arg.h"

/* NumPy, taken at the first host result: numpy.empty and a numpy.dtype per
 * cubridge dtype NumPy has. */
typedef struct cb_numpy {
  PyObject* empty;
  PyObject* dtypes[CB_MAX_DTYPES];
} cb_numpy;

int cb_numpy_traverse(cb_module* m, visitproc visit, void* arg);
void cb_numpy_clear(cb_module* m);

/* A new, uninitialised, C-contiguous numpy.ndarray of `dtype` and `shape`
 * (ndim entries). TypeError for a dtype NumPy lacks; NULL with an exception
 * when NumPy cannot be imported. */
PyObject* cb_numpy_new(cb_module* m, int ndim, const Py_ssize_t* shape, int dtype);

/* A new result like `proto` with `dtype`: a cubridge.Array of the same memory
 * kind and device for an Array, a device (managed) Array for device (managed)
 * memory of other libraries, allocated on `stream`; a numpy.ndarray for host
 * memory. */
PyObject* cb_new_result(cb_module* m, const cb_arg* proto, int dtype, cubridge_stream stream);

/* The same with its own shape (ndim entries) and `dtype`; without a
 * prototype (NULL) a device cubridge.Array. */
PyObject* cb_new_result_shaped(cb_module* m, const cb_arg* proto, int ndim, const int64_t* shape,
                               int dtype, cubridge_stream stream);

#endif /* CUBRIDGE_CEXT_RESULTS_H_ */
