/* New numpy.ndarray results: through NumPy's C API when it checks out, else
 * through numpy.empty. */
#ifndef CUBRIDGE_CEXT_NUMPY_NEW_H_
#define CUBRIDGE_CEXT_NUMPY_NEW_H_

#include "state.h"

/* A new, uninitialised, C-contiguous numpy.ndarray of `dtype` and `shape`
 * (ndim entries). TypeError for a dtype NumPy lacks; -1 / NULL with an
 * exception when NumPy cannot be imported. */
PyObject* cb_numpy_new(cb_state* st, int ndim, const Py_ssize_t* shape, int dtype);

/* How results are made: 1 through PyArray_NewFromDescr, -1 through
 * numpy.empty (the C API did not check out), 0 not decided (none made yet). */
int cb_numpy_new_state(const cb_state* st);

#endif /* CUBRIDGE_CEXT_NUMPY_NEW_H_ */
