/* Dtypes as Python spells them: names, protocol codes, scalars. The table is
 * the C ABI's (cubridge_dtype_name / cubridge_dtype_size), read at init. */
#ifndef CUBRIDGE_CEXT_DTYPES_H_
#define CUBRIDGE_CEXT_DTYPES_H_

#include "common.h"

/* One dtype of the C ABI, as the Python protocols spell it. */
typedef struct cb_dtype_info {
  const char* name;   /* "float32", ... */
  size_t size;        /* bytes */
  PyObject* name_obj; /* the name as an interned str */
  uint8_t dl_code;    /* DLPack type code (kDLFloat, ...); CB_DL_NONE if none */
  char typestr[8];    /* array-interface typestr ("<f4"); "" if it has none */
  char format[2];     /* buffer-protocol format ("f"); "" if it has none */
} cb_dtype_info;
#define CB_DL_NONE 255

typedef struct cb_dtypes {
  int count; /* cubridge_dtype_count() */
  cb_dtype_info info[CB_MAX_DTYPES];
} cb_dtypes;

int cb_dtypes_init(PyObject* module, cb_module* m);
int cb_dtypes_traverse(cb_module* m, visitproc visit, void* arg);
void cb_dtypes_clear(cb_module* m);

/* The dtype `dtype`, or NULL when it is not one. */
const cb_dtype_info* cb_dtype(const cb_module* m, int dtype);
/* A dtype given as an int code or a name ("float32", ...); -1 with an error. */
int cb_dtype_from_object(cb_module* m, PyObject* obj, const char* argname);
/* The dtype of a buffer-protocol format / array-interface typestr / DLPack
 * type; -1 (no exception) when cubridge has none. */
int cb_dtype_from_format(const cb_module* m, const char* format, Py_ssize_t itemsize);
int cb_dtype_from_typestr(const cb_module* m, const char* typestr);
int cb_dtype_from_dl(const cb_module* m, uint8_t code, uint8_t bits, uint16_t lanes);
/* The Python scalar (float or int) at host memory `p` holding `dtype`. */
PyObject* cb_scalar_to_python(const cb_module* m, int dtype, const void* p);

#endif /* CUBRIDGE_CEXT_DTYPES_H_ */
