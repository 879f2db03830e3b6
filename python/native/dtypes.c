/* Dtypes as Python spells them, read from the table of the module state. */
#include "dtypes.h"

#include <math.h>
#include <string.h>

#include "dlpack.h"
#include "errors.h"

const char* cb_dtype_list(const cb_state* st, char* buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < st->dtype_count && used < len; i++) {
    const char* sep = i == 0 ? "" : i + 1 == st->dtype_count ? " and " : ", ";
    int w = PyOS_snprintf(buf + used, len - used, "%s%s", sep, st->dtypes[i].name);
    if (w < 0) break;
    used += (size_t)w;
  }
  return buf;
}

int cb_dtype_from_object(cb_state* st, PyObject* obj, const char* argname) {
  if (PyLong_Check(obj)) {
    long code = PyLong_AsLong(obj);
    if (code >= 0 && code < st->dtype_count) return (int)code;
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "%s: unknown dtype code %ld", argname, code);
    return -1;
  }
  if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8AndSize(obj, NULL);
    if (s == NULL) return -1;
    for (int i = 0; i < st->dtype_count; i++) {
      if (strcmp(s, st->dtypes[i].name) == 0) return i;
    }
    char list[256];
    PyErr_Format(PyExc_TypeError, "%s: unsupported dtype '%s' (cubridge supports %s)", argname, s,
                 cb_dtype_list(st, list, sizeof list));
    return -1;
  }
  cb_type_error(argname, "a dtype name such as 'float32'", obj);
  return -1;
}

static int cb_find(const cb_state* st, uint8_t dl_code, size_t size) {
  for (int i = 0; i < st->dtype_count; i++) {
    if (st->dtypes[i].dl_code == dl_code && st->dtypes[i].size == size) return i;
  }
  return -1;
}

int cb_dtype_from_format(const cb_state* st, const char* fmt, Py_ssize_t itemsize) {
  if (fmt == NULL) fmt = "B";
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
  if (fmt[0] == '\0' || fmt[1] != '\0' || itemsize <= 0) return -1;
  uint8_t code;
  switch (fmt[0]) {
    case 'e':
    case 'f':
    case 'd':
      code = kDLFloat;
      break;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      code = kDLInt;
      break;
    default: /* unsigned and bool: cubridge has none of them today */
      return -1;
  }
  int dtype = cb_find(st, code, (size_t)itemsize);
  /* 'f' is 4 bytes, 'd' 8, 'e' 2: a format that disagrees with itemsize is refused. */
  if (dtype >= 0 && code == kDLFloat && st->dtypes[dtype].format[0] != fmt[0]) return -1;
  return dtype;
}

int cb_dtype_from_typestr(const cb_state* st, const char* s) {
  if (s[0] == '\0') return -1;
  for (int i = 0; i < st->dtype_count; i++) {
    const char* t = st->dtypes[i].typestr;
    /* '<' (little-endian), '=' (native) and '|' (not applicable) all fit here. */
    if (t[0] != '\0' && (s[0] == '<' || s[0] == '=' || s[0] == '|') && strcmp(s + 1, t + 1) == 0)
      return i;
  }
  return -1;
}

int cb_dtype_from_dl(const cb_state* st, uint8_t code, uint8_t bits, uint16_t lanes) {
  if (lanes != 1 || bits % 8 != 0) return -1;
  return cb_find(st, code, bits / 8);
}

PyObject* cb_dtype_names(const cb_state* st) {
  PyObject* t = PyTuple_New(st->dtype_count);
  if (t == NULL) return NULL;
  for (int i = 0; i < st->dtype_count; i++) {
    PyTuple_SetItem(t, i, Py_NewRef(st->dtypes[i].name_obj));
  }
  return t;
}

static double cb_half_to_double(uint16_t h) {
  int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = ldexp((double)frac, -24);
  } else if (exp == 31) {
    v = frac ? NAN : INFINITY;
  } else {
    v = ldexp((double)(frac | 0x400), exp - 25);
  }
  return sign ? -v : v;
}

static double cb_bfloat16_to_double(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return (double)f;
}

PyObject* cb_scalar_to_python(const cb_state* st, int dtype, const void* p) {
  const cb_dtype_info* d = cb_dtype(st, dtype);
  /* The stored value, read once as whichever type the dtype is. */
  union {
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
    uint16_t f16;
  } v;
  if (d == NULL || d->size > sizeof v)
    d = NULL;
  else
    memcpy(&v, p, d->size);
  int code = d != NULL ? d->dl_code : -1, size = d != NULL ? (int)d->size : 0;
  if (code == kDLInt && size == 4) return PyLong_FromLong(v.i32);
  if (code == kDLInt && size == 8) return PyLong_FromLongLong(v.i64);
  if (code == kDLFloat && size == 4) return PyFloat_FromDouble(v.f32);
  if (code == kDLFloat && size == 8) return PyFloat_FromDouble(v.f64);
  if (code == kDLFloat && size == 2) return PyFloat_FromDouble(cb_half_to_double(v.f16));
  if (code == kDLBfloat && size == 2) return PyFloat_FromDouble(cb_bfloat16_to_double(v.f16));
  PyErr_Format(PyExc_SystemError, "cubridge: no Python scalar for result dtype %d", dtype);
  return NULL;
}
