/* Importing a numpy.ndarray by reading the fields NumPy's public accessors
 * read, rather than through the buffer protocol (40-50 ns an array more). */
#ifndef CUBRIDGE_CEXT_NUMPY_IMPORT_H_
#define CUBRIDGE_CEXT_NUMPY_IMPORT_H_

#include "view.h"

/* Fills `v` from the ndarray `obj` (exactly numpy.ndarray; kept alive in
 * v->keep): its fields when it is C-contiguous, aligned, native-endian and of
 * a cubridge dtype, else through the buffer protocol (whose errors name what
 * is wrong). -1 with an exception. */
int cb_import_numpy(cb_state* st, PyObject* obj, cb_view* v);

/* The fast path's state: 1 on, -1 off (the first array's fields disagreed
 * with its buffer), 0 not decided yet (no array read so far). */
int cb_numpy_fields_state(const cb_state* st);

#endif /* CUBRIDGE_CEXT_NUMPY_IMPORT_H_ */
