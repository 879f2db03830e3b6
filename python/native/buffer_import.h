/* Importing an array argument through the buffer protocol (host memory). */
#ifndef CUBRIDGE_CEXT_BUFFER_IMPORT_H_
#define CUBRIDGE_CEXT_BUFFER_IMPORT_H_

#include "arg.h"

/* Fills `a` from obj's buffer (held until release); -1 with TypeError naming
 * the argument when obj has none that reads as a typed array. */
int cb_import_buffer(const cb_module* m, PyObject* obj, cb_arg* a);

#endif /* CUBRIDGE_CEXT_BUFFER_IMPORT_H_ */
