// mysaxpy._saxpy: the kernel as a CPython extension (limited API 3.11).
#include <Python.h>

#include "saxpy.h"

// saxpy(a, x, y): y = a*x + y in place; x and y are float32 buffers.
static PyObject* py_saxpy(PyObject* self, PyObject* args) {
  (void)self;
  float a;
  PyObject* x_obj;
  PyObject* y_obj;
  if (!PyArg_ParseTuple(args, "fOO:saxpy", &a, &x_obj, &y_obj)) return NULL;
  Py_buffer x, y;
  if (PyObject_GetBuffer(x_obj, &x, PyBUF_SIMPLE) != 0) return NULL;
  if (PyObject_GetBuffer(y_obj, &y, PyBUF_WRITABLE) != 0) {
    PyBuffer_Release(&x);
    return NULL;
  }
  PyObject* result = NULL;
  if (x.len != y.len || x.len % sizeof(float) != 0) {
    PyErr_SetString(PyExc_ValueError, "x and y must be float32 buffers of the same length");
  } else {
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = saxpy(a, (const float*)x.buf, (float*)y.buf, (size_t)x.len / sizeof(float));
    Py_END_ALLOW_THREADS;
    if (rc != 0) {
      PyErr_SetString(PyExc_RuntimeError, "saxpy: CUDA call failed");
    } else {
      result = Py_NewRef(Py_None);
    }
  }
  PyBuffer_Release(&x);
  PyBuffer_Release(&y);
  return result;
}

static PyObject* py_backend(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(saxpy_backend());
}

static PyMethodDef methods[] = {
    {"saxpy", py_saxpy, METH_VARARGS, "saxpy(a, x, y): y = a*x + y in place (float32 buffers)."},
    {"backend", py_backend, METH_NOARGS, "'cuda' or 'cpu'."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_saxpy", NULL, -1, methods};

PyMODINIT_FUNC PyInit__saxpy(void) { return PyModule_Create(&module); }
