// mygemm._gemm: the gemm example's C ABI for Python (limited API, abi3).
#include <Python.h>
#include <stdint.h>

#include "gemm.h"

// The result of a call that returns nothing: None, or RuntimeError for a failed status.
static PyObject* none_or_raise(int status) {
  if (status != GEMM_OK) {
    PyErr_Format(PyExc_RuntimeError, "mygemm: %s", gemm_status_string(status));
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject* device_count(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return PyLong_FromLong(gemm_device_count());
}

// matmul_device(dtype, m, n, k, a_ptr, b_ptr, c_ptr): device pointers (ints).
static PyObject* matmul_device(PyObject* self, PyObject* args) {
  (void)self;
  int dtype;
  long long m, n, k;
  unsigned long long a, b, c;
  if (!PyArg_ParseTuple(args, "iLLLKKK:matmul_device", &dtype, &m, &n, &k, &a, &b, &c)) {
    return NULL;
  }
  int status;
  PyThreadState* save = PyEval_SaveThread();
  status = gemm_matmul_device(dtype, m, n, k, (const void*)(uintptr_t)a, (const void*)(uintptr_t)b,
                              (void*)(uintptr_t)c);
  PyEval_RestoreThread(save);
  return none_or_raise(status);
}

// A contiguous buffer of exactly `bytes` bytes, writable if asked.
static int get_buffer(PyObject* obj, Py_buffer* view, Py_ssize_t bytes, int writable,
                      const char* what) {
  if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0) {
    return -1;
  }
  if (view->len != bytes) {
    PyErr_Format(PyExc_ValueError, "mygemm: %s has %zd bytes, expected %zd", what, view->len,
                 bytes);
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

// matmul_f32(m, n, k, a, b, c): host f32 buffers (row-major), c written.
static PyObject* matmul_f32(PyObject* self, PyObject* args) {
  (void)self;
  long long m, n, k;
  PyObject *a_obj, *b_obj, *c_obj;
  if (!PyArg_ParseTuple(args, "LLLOOO:matmul_f32", &m, &n, &k, &a_obj, &b_obj, &c_obj)) {
    return NULL;
  }
  if (m < 0 || n < 0 || k < 0 || m > (1LL << 31) || n > (1LL << 31) || k > (1LL << 31)) {
    PyErr_SetString(PyExc_ValueError, "mygemm: matmul_f32 sizes must be in [0, 2^31]");
    return NULL;
  }
  Py_buffer a, b, c;
  if (get_buffer(a_obj, &a, (Py_ssize_t)(4 * m * k), 0, "a") != 0) {
    return NULL;
  }
  if (get_buffer(b_obj, &b, (Py_ssize_t)(4 * k * n), 0, "b") != 0) {
    PyBuffer_Release(&a);
    return NULL;
  }
  if (get_buffer(c_obj, &c, (Py_ssize_t)(4 * m * n), 1, "c") != 0) {
    PyBuffer_Release(&a);
    PyBuffer_Release(&b);
    return NULL;
  }
  int status;
  PyThreadState* save = PyEval_SaveThread();
  status = gemm_matmul_host_f32(m, n, k, a.buf, b.buf, c.buf);
  PyEval_RestoreThread(save);
  PyBuffer_Release(&a);
  PyBuffer_Release(&b);
  PyBuffer_Release(&c);
  return none_or_raise(status);
}

// uniform(out, seed): fills a writable host f32 buffer.
static PyObject* uniform(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* out_obj;
  unsigned long long seed;
  if (!PyArg_ParseTuple(args, "OK:uniform", &out_obj, &seed)) {
    return NULL;
  }
  Py_buffer out;
  if (PyObject_GetBuffer(out_obj, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
    return NULL;
  }
  int status;
  PyThreadState* save = PyEval_SaveThread();
  status = gemm_uniform_host(out.buf, (size_t)out.len / 4, seed);
  PyEval_RestoreThread(save);
  PyBuffer_Release(&out);
  return none_or_raise(status);
}

// affine(x, scale, shift): x = scale * x + shift in place (the rdc kernel).
static PyObject* affine(PyObject* self, PyObject* args) {
  (void)self;
  PyObject* x_obj;
  float scale, shift;
  if (!PyArg_ParseTuple(args, "Off:affine", &x_obj, &scale, &shift)) {
    return NULL;
  }
  Py_buffer x;
  if (PyObject_GetBuffer(x_obj, &x, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) {
    return NULL;
  }
  int status;
  PyThreadState* save = PyEval_SaveThread();
  status = gemm_affine_host(x.buf, (size_t)x.len / 4, scale, shift);
  PyEval_RestoreThread(save);
  PyBuffer_Release(&x);
  return none_or_raise(status);
}

static PyObject* synchronize(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  int status;
  PyThreadState* save = PyEval_SaveThread();
  status = gemm_synchronize();
  PyEval_RestoreThread(save);
  return none_or_raise(status);
}

static PyMethodDef methods[] = {
    {"device_count", device_count, METH_NOARGS, "Number of CUDA devices."},
    {"matmul_device", matmul_device, METH_VARARGS,
     "C = A @ B on device pointers (dtype 0: f32, 1: f16)."},
    {"matmul_f32", matmul_f32, METH_VARARGS, "C = A @ B on host f32 buffers."},
    {"uniform", uniform, METH_VARARGS, "Fills a host f32 buffer with cuRAND uniforms."},
    {"affine", affine, METH_VARARGS, "x = scale * x + shift on the GPU (rdc kernel)."},
    {"synchronize", synchronize, METH_NOARGS, "Waits for the GPU."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_gemm", NULL, -1, methods};

PyMODINIT_FUNC PyInit__gemm(void) { return PyModule_Create(&module); }
