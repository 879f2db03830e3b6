/* Library-state functions. */
#include "info.h"

#include <string.h>

#include "array.h"
#include "backend.h"
#include "cupy_import.h"
#include "dtypes.h"
#include "errors.h"
#include "module.h"
#include "stream.h"
#include "torch_import.h"

static PyObject* cb_mod_backend(PyObject* m, PyObject* unused) {
  int b = cb_backend_kind(cb_module_of(m));
  if (b < 0) return NULL;
  return PyUnicode_FromString(b == CUBRIDGE_BACKEND_CUDA ? "cuda" : "cpu");
}

static PyObject* cb_mod_version(PyObject* m, PyObject* unused) {
  return PyLong_FromLong(cubridge_version());
}

static PyObject* cb_mod_cuda_version(PyObject* m, PyObject* unused) {
  return PyLong_FromLong(cubridge_cuda_version());
}

static PyObject* cb_mod_driver_version(PyObject* m, PyObject* unused) {
  return PyLong_FromLong(cubridge_driver_version());
}

/* `value` as a Python int, or the error of a failed `status`. */
static PyObject* cb_int_or_raise(PyObject* m, cubridge_status status, int value) {
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return PyLong_FromLong(value);
}

static PyObject* cb_mod_device_count(PyObject* m, PyObject* unused) {
  int count = 0;
  cubridge_status status = cubridge_device_count(&count);
  return cb_int_or_raise(m, status, count);
}

static PyObject* cb_mod_device_name(PyObject* m, PyObject* arg) {
  long index = PyLong_AsLong(arg);
  if (index == -1 && PyErr_Occurred()) return NULL;
  if (index != (int)index) {
    PyErr_Format(PyExc_ValueError, "device %ld is no device index", index);
    return NULL;
  }
  const int device = (int)index;
  char buf[256];
  cubridge_status status = cubridge_device_name(device, buf, sizeof buf);
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return PyUnicode_FromString(buf);
}

static PyObject* cb_mod_mem_info(PyObject* m, PyObject* unused) {
  size_t free_bytes = 0, total_bytes = 0;
  cubridge_status status = cubridge_mem_info(&free_bytes, &total_bytes);
  if (status != CUBRIDGE_OK) return cb_raise_status(cb_module_of(m), status);
  return Py_BuildValue("(nn)", (Py_ssize_t)free_bytes, (Py_ssize_t)total_bytes);
}

static PyObject* cb_mod_synchronize(PyObject* m, PyObject* args) {
  PyObject* stream_obj = Py_None;
  if (!PyArg_ParseTuple(args, "|O:synchronize", &stream_obj)) return NULL;
  cb_module* st = cb_module_of(m);
  uintptr_t handle;
  if (cb_stream_handle(st, stream_obj, &handle) < 0) return NULL;
  cubridge_status status;
  if (stream_obj == Py_None) {
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_device_synchronize();
    Py_END_ALLOW_THREADS;
  } else {
    cubridge_stream s;
    if (cb_stream_wrap(st, handle, -1, &s) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS;
    status = cubridge_stream_synchronize(s);
    Py_END_ALLOW_THREADS;
    if (status != CUBRIDGE_OK) cb_raise_status(st, status); /* before the release clears it */
    cb_stream_release(s);
    if (status != CUBRIDGE_OK) return NULL;
    Py_RETURN_NONE;
  }
  return cb_none_or_raise(st, status);
}

static PyObject* cb_mod_dtype_size(PyObject* m, PyObject* arg) {
  cb_module* st = cb_module_of(m);
  int dtype = cb_dtype_from_object(st, arg, "dtype");
  if (dtype < 0) return NULL;
  return PyLong_FromSize_t(cb_dtype(st, dtype)->size);
}

/* The ABI's dtype names in order: DTYPES[cubridge_dtype]. */
static PyObject* cb_dtype_names(const cb_module* st) {
  PyObject* t = PyTuple_New(st->dtypes.count);
  for (int i = 0; t != NULL && i < st->dtypes.count; i++)
    PyTuple_SetItem(t, i, Py_NewRef(st->dtypes.info[i].name_obj));
  return t;
}

/* The ABI's status names in order: STATUS_NAMES[status]. */
static PyObject* cb_status_names(const cb_module* st) {
  PyObject* t = PyTuple_New(st->errors.count);
  for (int i = 0; t != NULL && i < st->errors.count; i++) {
    PyObject* name = PyUnicode_FromString(cubridge_status_name(i));
    if (name == NULL) Py_CLEAR(t);
    if (t != NULL) PyTuple_SetItem(t, i, name);
  }
  return t;
}

/* The ABI's memory kind names in order: MEMORY_NAMES[cubridge_memory]. */
static PyObject* cb_memory_names(const cb_module* st) {
  PyObject* t = PyTuple_New(CB_NUM_MEMORY_KINDS);
  for (int k = 0; t != NULL && k < CB_NUM_MEMORY_KINDS; k++)
    PyTuple_SetItem(t, k, Py_NewRef(st->arrays.memory_names[k]));
  return t;
}

/* The C ABI's tables as the library answers now, for the test that compares
 * them with the Python front end: {"dtypes": ((name, size), ...),
 * "statuses": (name, ...), "memory": (name, ...)}. */
static PyObject* cb_mod_abi_tables(PyObject* m, PyObject* unused) {
  int dtype_count = cubridge_dtype_count(), status_count = cubridge_status_count();
  PyObject* dtypes = PyTuple_New(dtype_count);
  PyObject* statuses = PyTuple_New(status_count);
  PyObject* memory = PyTuple_New(CB_NUM_MEMORY_KINDS);
  PyObject* result = NULL;
  if (dtypes == NULL || statuses == NULL || memory == NULL) goto done;
  for (int i = 0; i < status_count; i++) {
    PyObject* name = PyUnicode_FromString(cubridge_status_name(i));
    if (name == NULL) goto done;
    PyTuple_SetItem(statuses, i, name);
  }
  for (int i = 0; i < dtype_count; i++) {
    PyObject* row =
        Py_BuildValue("(sn)", cubridge_dtype_name(i), (Py_ssize_t)cubridge_dtype_size(i));
    if (row == NULL) goto done;
    PyTuple_SetItem(dtypes, i, row);
  }
  for (int k = 0; k < CB_NUM_MEMORY_KINDS; k++) {
    PyObject* name = PyUnicode_FromString(cubridge_memory_name(k));
    if (name == NULL) goto done;
    PyTuple_SetItem(memory, k, name);
  }
  result = Py_BuildValue("{s:O,s:O,s:O}", "dtypes", dtypes, "statuses", statuses, "memory", memory);
done:
  Py_XDECREF(dtypes);
  Py_XDECREF(statuses);
  Py_XDECREF(memory);
  return result;
}

/* The optional device argument of `format` ("|O:name"): -1 (None, the
 * current device) or an index; below -1 with an error. */
static int cb_device_arg(cb_module* st, PyObject* args, const char* format) {
  PyObject* device_obj = Py_None;
  if (!PyArg_ParseTuple(args, format, &device_obj)) return -2;
  return cb_parse_device(st, device_obj);
}

/* memory_stats(device=None) -> dict of the library's pool on `device`. */
static PyObject* cb_mod_memory_stats(PyObject* m, PyObject* args) {
  cb_module* st = cb_module_of(m);
  int device = cb_device_arg(st, args, "|O:memory_stats");
  if (device < -1) return NULL;
  cubridge_memory_stats s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  cubridge_status status = cubridge_memory_stats_get(device, &s);
  if (status != CUBRIDGE_OK) return cb_raise_status(st, status);
  return Py_BuildValue(
      "{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "in_use_bytes", (unsigned long long)s.in_use_bytes,
      "reserved_bytes", (unsigned long long)s.reserved_bytes, "peak_in_use_bytes",
      (unsigned long long)s.peak_in_use_bytes, "alloc_count", (unsigned long long)s.alloc_count,
      "free_count", (unsigned long long)s.free_count, "cached_bytes",
      (unsigned long long)s.cached_bytes, "scratch_bytes", (unsigned long long)s.scratch_bytes);
}

/* empty_cache(device=None): cached, unused pool memory back to the driver. */
static PyObject* cb_mod_empty_cache(PyObject* m, PyObject* args) {
  cb_module* st = cb_module_of(m);
  int device = cb_device_arg(st, args, "|O:empty_cache");
  if (device < -1) return NULL;
  cubridge_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = cubridge_empty_cache(device);
  Py_END_ALLOW_THREADS;
  return cb_none_or_raise(st, status);
}

/* current_device() -> the calling thread's device index (0 on the CPU backend). */
static PyObject* cb_mod_current_device(PyObject* m, PyObject* unused) {
  int device = 0;
  cubridge_status status = cubridge_get_device(&device);
  return cb_int_or_raise(m, status, device);
}

/* True / False / None for a fast path's state (1, -1, 0 not decided). */
static PyObject* cb_tristate(int state) {
  return state == 0 ? Py_NewRef(Py_None) : PyBool_FromLong(state > 0);
}

/* _fast_paths() -> {"torch_exchange", "cupy_attributes"}: whether torch
 * tensors are read through DLPack's C exchange table (torch_import.c) and the
 * last cupy.ndarray through its attributes (cupy_import.c). For tests. */
static PyObject* cb_mod_fast_paths(PyObject* m, PyObject* unused) {
  (void)unused;
  const cb_module* st = cb_module_of(m);
  PyObject* torch = cb_tristate(cb_torch_state(st));
  PyObject* cupy = cb_tristate(cb_cupy_state(st));
  PyObject* out = torch && cupy
                      ? Py_BuildValue("{sOsO}", "torch_exchange", torch, "cupy_attributes", cupy)
                      : NULL;
  Py_XDECREF(torch);
  Py_XDECREF(cupy);
  return out;
}

static PyMethodDef cb_info_methods[] = {
    {"backend", cb_mod_backend, METH_NOARGS, "backend($module, /)\n--\n\nReturns 'cpu' | 'cuda'."},
    {"version", cb_mod_version, METH_NOARGS,
     "version($module, /)\n--\n\nReturns int (MAJOR*10000+MINOR*100+PATCH)."},
    {"cuda_version", cb_mod_cuda_version, METH_NOARGS,
     "cuda_version($module, /)\n--\n\nReturns int (CUDA the library was built with, "
     "MAJOR*1000+MINOR*10; 0: none)."},
    {"driver_version", cb_mod_driver_version, METH_NOARGS,
     "driver_version($module, /)\n--\n\nReturns int (CUDA the driver supports, "
     "MAJOR*1000+MINOR*10; 0: none)."},
    {"device_count", cb_mod_device_count, METH_NOARGS,
     "device_count($module, /)\n--\n\nReturns int."},
    {"device_name", cb_mod_device_name, METH_O,
     "device_name($module, index, /)\n--\n\nReturns str."},
    {"mem_info", cb_mod_mem_info, METH_NOARGS,
     "mem_info($module, /)\n--\n\nReturns (free_bytes, total_bytes)."},
    {"synchronize", cb_mod_synchronize, METH_VARARGS,
     "synchronize($module, stream=None, /)\n--\n\n"},
    {"dtype_size", cb_mod_dtype_size, METH_O, "dtype_size($module, dtype, /)\n--\n\nReturns int."},
    {"memory_stats", cb_mod_memory_stats, METH_VARARGS,
     "memory_stats($module, device=None, /)\n--\n\nReturns dict."},
    {"empty_cache", cb_mod_empty_cache, METH_VARARGS,
     "empty_cache($module, device=None, /)\n--\n\n"},
    {"current_device", cb_mod_current_device, METH_NOARGS,
     "current_device($module, /)\n--\n\nReturns int."},
    {"_abi_tables", cb_mod_abi_tables, METH_NOARGS,
     "_abi_tables($module, /)\n--\n\nReturns dict (the C ABI's tables)."},
    {"_fast_paths", cb_mod_fast_paths, METH_NOARGS,
     "_fast_paths($module, /)\n--\n\nReturns {'torch_exchange', 'cupy_attributes'}: bool (None: "
     "not yet)."},
    {NULL, NULL, 0, NULL}};

int cb_info_init(PyObject* module, cb_module* st) {
  if (PyModule_AddFunctions(module, cb_info_methods) < 0) return -1;
  int v = cubridge_version();
  PyObject* version = PyUnicode_FromFormat("%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
  PyObject* dtypes = cb_dtype_names(st);
  PyObject* statuses = cb_status_names(st);
  PyObject* memories = cb_memory_names(st);
  int rc = version == NULL || dtypes == NULL || statuses == NULL || memories == NULL ||
                   PyModule_AddObjectRef(module, "__version__", version) < 0 ||
                   PyModule_AddObjectRef(module, "DTYPES", dtypes) < 0 ||
                   PyModule_AddObjectRef(module, "STATUS_NAMES", statuses) < 0 ||
                   PyModule_AddObjectRef(module, "MEMORY_NAMES", memories) < 0 ||
                   PyModule_AddIntConstant(module, "MAX_NDIM", CB_MAX_NDIM) < 0
               ? -1
               : 0;
  Py_XDECREF(version);
  Py_XDECREF(dtypes);
  Py_XDECREF(statuses);
  Py_XDECREF(memories);
  return rc;
}
