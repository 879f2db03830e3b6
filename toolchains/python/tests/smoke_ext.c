// The py_extension rule's own test: a limited-API module over a cuda_library.
#include <Python.h>

int smoke_device_count(void);

static PyObject* device_count(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyLong_FromLong(smoke_device_count());
}

static PyMethodDef methods[] = {
    {"device_count", device_count, METH_NOARGS, "Number of CUDA devices."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "smoke_ext", NULL, -1, methods};

PyMODINIT_FUNC PyInit_smoke_ext(void) { return PyModule_Create(&module); }
