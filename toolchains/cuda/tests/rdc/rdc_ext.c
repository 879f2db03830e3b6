// rdc = True CUDA code from a Python extension.
#include <Python.h>

#include "toolchains/cuda/tests/rdc/apply.h"

static PyObject* apply(PyObject* self, PyObject* args) {
  (void)self;
  float x[4];
  if (!PyArg_ParseTuple(args, "ffff:apply", &x[0], &x[1], &x[2], &x[3])) {
    return NULL;
  }
  int rc = rdc_apply(x, 4);
  if (rc == RDC_NO_DEVICE) {
    Py_RETURN_NONE;
  }
  if (rc != RDC_OK) {
    PyErr_SetString(PyExc_RuntimeError, "rdc_apply: CUDA error");
    return NULL;
  }
  return Py_BuildValue("(dddd)", (double)x[0], (double)x[1], (double)x[2], (double)x[3]);
}

static PyMethodDef methods[] = {
    {"apply", apply, METH_VARARGS, "2*x+1 for 4 floats on the GPU; None without one."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_rdc", NULL, -1, methods};

PyMODINIT_FUNC PyInit__rdc(void) { return PyModule_Create(&module); }
