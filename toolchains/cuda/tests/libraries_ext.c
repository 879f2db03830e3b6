// A Python extension that links cuBLAS and cuRAND from their wheels: the test
// checks that it finds them through the site-packages layout.
#include <Python.h>
#include <cublas_v2.h>
#include <curand.h>

static PyObject* versions(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  int cublas = 0, curand = 0;
  if (cublasGetProperty(MAJOR_VERSION, &cublas) != CUBLAS_STATUS_SUCCESS ||
      curandGetProperty(MAJOR_VERSION, &curand) != CURAND_STATUS_SUCCESS) {
    PyErr_SetString(PyExc_RuntimeError, "cublasGetProperty / curandGetProperty failed");
    return NULL;
  }
  return Py_BuildValue("(ii)", cublas, curand);
}

static PyMethodDef methods[] = {
    {"versions", versions, METH_NOARGS, "(cuBLAS major, cuRAND major)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_libraries", NULL, -1, methods};

PyMODINIT_FUNC PyInit__libraries(void) { return PyModule_Create(&module); }
