/* Importing an array argument through the buffer protocol (host memory). */
#ifndef CUBRIDGE_CEXT_BUFFER_IMPORT_H_
#define CUBRIDGE_CEXT_BUFFER_IMPORT_H_

#include "view.h"

/* Fills `v` from obj's buffer (held until cb_view_release). -1 with an error. */
int cb_import_buffer(const cb_state* st, PyObject* obj, cb_view* v);

#endif /* CUBRIDGE_CEXT_BUFFER_IMPORT_H_ */
