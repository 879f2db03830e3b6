/* Dtypes as Python spells them (dtypes.h). */
#include "dtypes.h"

#include <math.h>
#include <string.h>

#include "dlpack.h"
#include "errors.h"
#include "module.h"

/* The one table of the protocols' letters: the buffer protocol's formats
 * (PEP 3118, the struct module's native sizes) with the DLPack type code and
 * size each stands for. A dtype's format, and the dtype of a buffer, come
 * from it; unsigned and bool formats name no cubridge dtype today. */
static const struct {
  char letter;
  uint8_t dl_code;
  uint8_t size;
} cb_formats[] = {
    {'e', kDLFloat, 2},
    {'f', kDLFloat, 4},
    {'d', kDLFloat, 8},
    {'b', kDLInt, 1},
    {'h', kDLInt, 2},
    {'i', kDLInt, 4},
    {'q', kDLInt, 8},
    {'l', kDLInt, sizeof(long)},
    {'B', kDLUInt, 1},
    {'H', kDLUInt, 2},
    {'I', kDLUInt, 4},
    {'Q', kDLUInt, 8},
    {'L', kDLUInt, sizeof(long)},
};
#define CB_NUM_FORMATS (sizeof cb_formats / sizeof cb_formats[0])

/* DLPack's code and the array interface's kind letter by the name's prefix
 * ("float32": kDLFloat, 'f'); NumPy has no bfloat16, so no typestr. */
static const struct {
  const char* prefix;
  uint8_t dl_code;
  char kind;
} cb_families[] = {
    {"bfloat", kDLBfloat, 0},
    {"float", kDLFloat, 'f'},
    {"uint", kDLUInt, 'u'},
    {"int", kDLInt, 'i'},
};

static void cb_derive_codes(cb_dtype_info* d) {
  d->dl_code = CB_DL_NONE;
  d->typestr[0] = d->format[0] = d->format[1] = '\0';
  for (size_t i = 0; i < sizeof cb_families / sizeof cb_families[0]; i++) {
    if (strncmp(d->name, cb_families[i].prefix, strlen(cb_families[i].prefix)) != 0) continue;
    d->dl_code = cb_families[i].dl_code;
    if (cb_families[i].kind != 0) {
      PyOS_snprintf(d->typestr, sizeof d->typestr, "%c%c%zu", d->size == 1 ? '|' : '<',
                    cb_families[i].kind, d->size);
    }
    break;
  }
  for (size_t i = 0; i < CB_NUM_FORMATS && d->format[0] == '\0'; i++) {
    if (cb_formats[i].dl_code == d->dl_code && cb_formats[i].size == d->size)
      d->format[0] = cb_formats[i].letter;
  }
}

int cb_dtypes_init(PyObject* module, cb_module* m) {
  (void)module;
  cb_dtypes* st = &m->dtypes;
  int count = cubridge_dtype_count();
  if (count < 0 || count > CB_MAX_DTYPES) {
    PyErr_Format(PyExc_ImportError, "cubridge: the library reports %d dtypes (at most %d fit)",
                 count, CB_MAX_DTYPES);
    return -1;
  }
  st->count = count;
  for (int i = 0; i < count; i++) {
    cb_dtype_info* d = &st->info[i];
    d->name = cubridge_dtype_name(i);
    d->size = cubridge_dtype_size(i);
    if (d->name == NULL || d->size == 0) {
      PyErr_Format(PyExc_ImportError, "cubridge: the library has no name or size for dtype %d", i);
      return -1;
    }
    if ((d->name_obj = PyUnicode_InternFromString(d->name)) == NULL) return -1;
    cb_derive_codes(d);
  }
  return 0;
}

int cb_dtypes_traverse(cb_module* m, visitproc visit, void* arg) {
  for (int i = 0; i < CB_MAX_DTYPES; i++) Py_VISIT(m->dtypes.info[i].name_obj);
  return 0;
}

void cb_dtypes_clear(cb_module* m) {
  for (int i = 0; i < CB_MAX_DTYPES; i++) Py_CLEAR(m->dtypes.info[i].name_obj);
}

const cb_dtype_info* cb_dtype(const cb_module* m, int dtype) {
  return dtype >= 0 && dtype < m->dtypes.count ? &m->dtypes.info[dtype] : NULL;
}

/* "float32, float64, ... and bfloat16" into buf. */
static const char* cb_dtype_list(const cb_module* m, char* buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < m->dtypes.count && used < len; i++) {
    const char* sep = i == 0 ? "" : i + 1 == m->dtypes.count ? " and " : ", ";
    int w = PyOS_snprintf(buf + used, len - used, "%s%s", sep, m->dtypes.info[i].name);
    if (w < 0) break;
    used += (size_t)w;
  }
  return buf;
}

int cb_dtype_from_object(cb_module* m, PyObject* obj, const char* argname) {
  if (PyLong_Check(obj)) {
    long code = PyLong_AsLong(obj);
    if (code >= 0 && code < m->dtypes.count) return (int)code;
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "%s: unknown dtype code %ld", argname, code);
    return -1;
  }
  if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8AndSize(obj, NULL);
    if (s == NULL) return -1;
    for (int i = 0; i < m->dtypes.count; i++) {
      if (strcmp(s, m->dtypes.info[i].name) == 0) return i;
    }
    char list[256];
    PyErr_Format(PyExc_TypeError, "%s: unsupported dtype '%s' (cubridge supports %s)", argname, s,
                 cb_dtype_list(m, list, sizeof list));
    return -1;
  }
  cb_type_error(argname, "a dtype name such as 'float32'", obj);
  return -1;
}

static int cb_find(const cb_module* m, uint8_t dl_code, size_t size) {
  for (int i = 0; i < m->dtypes.count; i++) {
    if (m->dtypes.info[i].dl_code == dl_code && m->dtypes.info[i].size == size) return i;
  }
  return -1;
}

int cb_dtype_from_format(const cb_module* m, const char* fmt, Py_ssize_t itemsize) {
  if (fmt == NULL) fmt = "B";
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') fmt++;
  if (fmt[0] == '\0' || fmt[1] != '\0') return -1;
  for (size_t i = 0; i < CB_NUM_FORMATS; i++) {
    /* A format that disagrees with itemsize is refused. */
    if (cb_formats[i].letter == fmt[0] && cb_formats[i].size == itemsize)
      return cb_find(m, cb_formats[i].dl_code, (size_t)itemsize);
  }
  return -1;
}

int cb_dtype_from_typestr(const cb_module* m, const char* s) {
  if (s[0] == '\0') return -1;
  for (int i = 0; i < m->dtypes.count; i++) {
    const char* t = m->dtypes.info[i].typestr;
    /* '<' (little-endian), '=' (native) and '|' (not applicable) all fit here. */
    if (t[0] != '\0' && (s[0] == '<' || s[0] == '=' || s[0] == '|') && strcmp(s + 1, t + 1) == 0)
      return i;
  }
  return -1;
}

int cb_dtype_from_dl(const cb_module* m, uint8_t code, uint8_t bits, uint16_t lanes) {
  if (lanes != 1 || bits % 8 != 0) return -1;
  return cb_find(m, code, bits / 8);
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

PyObject* cb_scalar_to_python(const cb_module* m, int dtype, const void* p) {
  const cb_dtype_info* d = cb_dtype(m, dtype);
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
