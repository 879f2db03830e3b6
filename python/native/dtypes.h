/* Dtypes as Python spells them: names, protocol codes, scalars. The table is
 * the C ABI's (state.h); this file only reads it. */
#ifndef CUBRIDGE_CEXT_DTYPES_H_
#define CUBRIDGE_CEXT_DTYPES_H_

#include "state.h"

/* A dtype given as an int code or a name ("float32", ...); -1 with an error. */
int cb_dtype_from_object(cb_state* st, PyObject* obj, const char* argname);
/* The dtype of a buffer-protocol format / array-interface typestr / DLPack
 * type; -1 (no exception) when cubridge has none. */
int cb_dtype_from_format(const cb_state* st, const char* format, Py_ssize_t itemsize);
int cb_dtype_from_typestr(const cb_state* st, const char* typestr);
int cb_dtype_from_dl(const cb_state* st, uint8_t code, uint8_t bits, uint16_t lanes);
/* "float32, float64, ... and bfloat16" into buf. */
const char* cb_dtype_list(const cb_state* st, char* buf, size_t len);
/* The Python scalar (float or int) at host memory `p` holding `dtype`. */
PyObject* cb_scalar_to_python(const cb_state* st, int dtype, const void* p);
/* A tuple of the dtype names in ABI order (cubridge._native.DTYPES). */
PyObject* cb_dtype_names(const cb_state* st);

#endif /* CUBRIDGE_CEXT_DTYPES_H_ */
