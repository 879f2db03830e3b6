/* The dtype table as the extension sees it, and Python scalars from raw values. */
#include <math.h>
#include <string.h>

#include "native.h"

static const char* const cb_names[CB_NUM_DTYPES] = {"float32", "float64", "int32",
                                                    "int64",   "float16", "bfloat16"};
static const size_t cb_sizes[CB_NUM_DTYPES] = {4, 8, 4, 8, 2, 2};

const char* cb_dtype_name(int dtype) {
  return dtype >= 0 && dtype < CB_NUM_DTYPES ? cb_names[dtype] : NULL;
}

size_t cb_dtype_size(int dtype) {
  return dtype >= 0 && dtype < CB_NUM_DTYPES ? cb_sizes[dtype] : 0;
}

int cb_dtype_from_object(PyObject* obj, const char* argname) {
  if (PyLong_Check(obj)) {
    long code = PyLong_AsLong(obj);
    if (code >= 0 && code < CB_NUM_DTYPES) return (int)code;
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "%s: unknown dtype code %ld", argname, code);
    return -1;
  }
  if (PyUnicode_Check(obj)) {
    const char* s = PyUnicode_AsUTF8AndSize(obj, NULL);
    if (s == NULL) return -1;
    for (int i = 0; i < CB_NUM_DTYPES; i++) {
      if (strcmp(s, cb_names[i]) == 0) return i;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s: unsupported dtype '%s' (cubridge supports float32, float64, int32, int64, "
                 "float16, bfloat16)",
                 argname, s);
    return -1;
  }
  cb_type_error(argname, "a dtype name such as 'float32'", obj);
  return -1;
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

PyObject* cb_type_error(const char* argname, const char* wanted, PyObject* got) {
  PyObject* name = PyType_GetName(Py_TYPE(got));
  if (name == NULL) return NULL;
  PyErr_Format(PyExc_TypeError, "%s must be %s, got %U", argname, wanted, name);
  Py_DECREF(name);
  return NULL;
}

PyObject* cb_scalar_to_python(int dtype, const void* p) {
  switch (dtype) {
    case CUBRIDGE_FLOAT32: {
      float f;
      memcpy(&f, p, sizeof f);
      return PyFloat_FromDouble((double)f);
    }
    case CUBRIDGE_FLOAT64: {
      double d;
      memcpy(&d, p, sizeof d);
      return PyFloat_FromDouble(d);
    }
    case CUBRIDGE_INT32: {
      int32_t i;
      memcpy(&i, p, sizeof i);
      return PyLong_FromLong((long)i);
    }
    case CUBRIDGE_INT64: {
      int64_t i;
      memcpy(&i, p, sizeof i);
      return PyLong_FromLongLong((long long)i);
    }
    case CUBRIDGE_FLOAT16:
    case CUBRIDGE_BFLOAT16: {
      uint16_t h;
      memcpy(&h, p, sizeof h);
      return PyFloat_FromDouble(dtype == CUBRIDGE_FLOAT16 ? cb_half_to_double(h)
                                                          : cb_bfloat16_to_double(h));
    }
    default:
      PyErr_Format(PyExc_SystemError, "cubridge: bad result dtype %d", dtype);
      return NULL;
  }
}
