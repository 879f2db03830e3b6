/* cubridge._native: module definition and library-state functions. */
#include "native.h"

int cb_backend(void) {
  static int backend = -1;
  if (backend < 0) {
    int b;
    cubridge_status st = cubridge_get_backend(&b);
    if (st != CUBRIDGE_OK) {
      cb_raise_status(st);
      return -1;
    }
    backend = b;
  }
  return backend;
}

static PyObject* cb_mod_backend(PyObject* m, PyObject* unused) {
  int b = cb_backend();
  if (b < 0) return NULL;
  return PyUnicode_FromString(b == CUBRIDGE_BACKEND_CUDA ? "cuda" : "cpu");
}

static PyObject* cb_mod_version(PyObject* m, PyObject* unused) {
  return PyLong_FromLong(cubridge_version());
}

static PyObject* cb_mod_device_count(PyObject* m, PyObject* unused) {
  int count = 0;
  cubridge_status st = cubridge_device_count(&count);
  if (st != CUBRIDGE_OK) return cb_raise_status(st);
  return PyLong_FromLong(count);
}

static PyObject* cb_mod_device_name(PyObject* m, PyObject* arg) {
  int device = (int)PyLong_AsLong(arg);
  if (device == -1 && PyErr_Occurred()) return NULL;
  char buf[256];
  cubridge_status st = cubridge_device_name(device, buf, sizeof buf);
  if (st != CUBRIDGE_OK) return cb_raise_status(st);
  return PyUnicode_FromString(buf);
}

static PyObject* cb_mod_mem_info(PyObject* m, PyObject* unused) {
  size_t free_bytes = 0, total_bytes = 0;
  cubridge_status st = cubridge_mem_info(&free_bytes, &total_bytes);
  if (st != CUBRIDGE_OK) return cb_raise_status(st);
  return Py_BuildValue("(nn)", (Py_ssize_t)free_bytes, (Py_ssize_t)total_bytes);
}

static PyObject* cb_mod_synchronize(PyObject* m, PyObject* args) {
  PyObject* stream_obj = Py_None;
  if (!PyArg_ParseTuple(args, "|O:synchronize", &stream_obj)) return NULL;
  uintptr_t handle;
  if (cb_stream_handle(stream_obj, &handle) < 0) return NULL;
  cubridge_status st;
  if (stream_obj == Py_None) {
    Py_BEGIN_ALLOW_THREADS st = cubridge_device_synchronize();
    Py_END_ALLOW_THREADS
  } else {
    cubridge_stream s;
    if (cb_stream_from_handle(handle, &s) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS st = cubridge_stream_synchronize(s);
    Py_END_ALLOW_THREADS cb_stream_release(s);
  }
  if (st != CUBRIDGE_OK) return cb_raise_status(st);
  Py_RETURN_NONE;
}

static PyObject* cb_mod_dtype_size(PyObject* m, PyObject* arg) {
  int dtype = cb_dtype_from_object(arg, "dtype");
  if (dtype < 0) return NULL;
  return PyLong_FromSize_t(cb_dtype_size(dtype));
}

static PyMethodDef cb_state_methods[] = {
    {"backend", cb_mod_backend, METH_NOARGS, "backend() -> 'cpu' | 'cuda'"},
    {"version", cb_mod_version, METH_NOARGS, "version() -> int (MAJOR*10000+MINOR*100+PATCH)"},
    {"device_count", cb_mod_device_count, METH_NOARGS, "device_count() -> int"},
    {"device_name", cb_mod_device_name, METH_O, "device_name(index) -> str"},
    {"mem_info", cb_mod_mem_info, METH_NOARGS, "mem_info() -> (free_bytes, total_bytes)"},
    {"synchronize", cb_mod_synchronize, METH_VARARGS, "synchronize(stream=None)"},
    {"dtype_size", cb_mod_dtype_size, METH_O, "dtype_size(dtype) -> int"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef cb_module = {PyModuleDef_HEAD_INIT, "cubridge._native",
                                       "cubridge's kernels as a CPython extension (limited API).",
                                       -1, NULL};

PyMODINIT_FUNC PyInit__native(void) {
  PyObject* m = PyModule_Create(&cb_module);
  if (m == NULL) return NULL;
  if (PyModule_AddFunctions(m, cb_state_methods) < 0 ||
      PyModule_AddFunctions(m, cb_op_methods) < 0 || cb_errors_init(m) < 0 ||
      cb_array_init_type(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  int v = cubridge_version();
  PyObject* version = PyUnicode_FromFormat("%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  if (version == NULL || PyModule_AddObject(m, "__version__", version) < 0) {
    Py_XDECREF(version);
    Py_DECREF(m);
    return NULL;
  }
  PyModule_AddIntConstant(m, "MAX_NDIM", CB_MAX_NDIM);
  return m;
}
