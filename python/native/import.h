/* Reading any array argument: picks the protocol and fills the argument; the
 * runtime checks it and orders it after its producer (call.h). */
#ifndef CUBRIDGE_CEXT_IMPORT_H_
#define CUBRIDGE_CEXT_IMPORT_H_

#include "arg.h"

/* Reads `obj` into `a`, named `name`. `consumer` is the call's stream handle
 * (CB_STREAM_UNORDERED while it records a graph), given to __dlpack__
 * producers. On failure `a` is released. */
int cb_import(cb_module* m, PyObject* obj, const char* name, uintptr_t consumer, cb_arg* a);

#endif /* CUBRIDGE_CEXT_IMPORT_H_ */
