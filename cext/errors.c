/* cubridge.Error and its subclasses, one per cubridge_status. */
#include "native.h"

typedef struct {
  cubridge_status status;
  const char* name; /* attribute name in the module */
  const char* doc;
  PyObject* extra_base; /* builtin exception it also derives from, or NULL */
  PyObject* type;
} cb_error_class;

static PyObject* cb_error_base; /* cubridge.Error */

static cb_error_class cb_classes[] = {
    {CUBRIDGE_ERR_INVALID_ARGUMENT, "InvalidArgumentError",
     "The library rejected an argument (also a ValueError)."},
    {CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "UnsupportedDtypeError",
     "The dtype is unknown or not valid for the op (also a TypeError)."},
    {CUBRIDGE_ERR_OUT_OF_MEMORY, "OutOfMemoryError",
     "Host, pinned, device or managed memory ran out (also a MemoryError)."},
    {CUBRIDGE_ERR_NO_DEVICE, "NoDeviceError",
     "The CUDA backend was asked for, but no GPU is visible."},
    {CUBRIDGE_ERR_DRIVER, "DriverError", "The CUDA driver is missing or too old."},
    {CUBRIDGE_ERR_LAUNCH_FAILED, "LaunchError", "A kernel failed to launch or run."},
    {CUBRIDGE_ERR_CUDA, "CudaError", "Any other CUDA runtime error."},
    {CUBRIDGE_ERR_CUDA_STICKY, "CudaStickyError",
     "The CUDA context is corrupt; no more GPU work is possible in this process."},
    {CUBRIDGE_ERR_INTERNAL, "InternalError", "A bug in cubridge; please report it."},
};
#define CB_NUM_CLASSES (sizeof(cb_classes) / sizeof(cb_classes[0]))

static PyObject* cb_class_for(cubridge_status status) {
  for (size_t i = 0; i < CB_NUM_CLASSES; i++) {
    if (cb_classes[i].status == status) return cb_classes[i].type;
  }
  return cb_error_base;
}

static PyObject* cb_make_class(const char* name, const char* doc, PyObject* bases) {
  char qualified[64];
  PyOS_snprintf(qualified, sizeof qualified, "cubridge.%s", name);
  return PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
}

int cb_errors_init(PyObject* module) {
  cb_classes[0].extra_base = PyExc_ValueError;
  cb_classes[1].extra_base = PyExc_TypeError;
  cb_classes[2].extra_base = PyExc_MemoryError;
  cb_error_base = cb_make_class("Error",
                                "Base class of the errors the cubridge library reports. "
                                "`status` holds the C status code, `status_name` its name.",
                                NULL);
  if (cb_error_base == NULL) return -1;
  Py_INCREF(cb_error_base);
  if (PyModule_AddObject(module, "Error", cb_error_base) < 0) return -1;
  PyObject* cuda_error = NULL;
  for (size_t i = 0; i < CB_NUM_CLASSES; i++) {
    cb_error_class* c = &cb_classes[i];
    PyObject* first = c->status == CUBRIDGE_ERR_CUDA_STICKY ? cuda_error : cb_error_base;
    PyObject* bases =
        c->extra_base ? PyTuple_Pack(2, first, c->extra_base) : PyTuple_Pack(1, first);
    if (bases == NULL) return -1;
    c->type = cb_make_class(c->name, c->doc, bases);
    Py_DECREF(bases);
    if (c->type == NULL) return -1;
    if (c->status == CUBRIDGE_ERR_CUDA) cuda_error = c->type;
    Py_INCREF(c->type);
    if (PyModule_AddObject(module, c->name, c->type) < 0) return -1;
  }
  return 0;
}

PyObject* cb_raise_status(cubridge_status status) {
  const char* msg = cubridge_last_error();
  if (msg == NULL || msg[0] == '\0') msg = cubridge_status_name((int)status);
  PyObject* type = cb_class_for(status);
  PyObject* exc = PyObject_CallFunction(type, "s", msg);
  if (exc == NULL) return NULL;
  PyObject* code = PyLong_FromLong((long)status);
  PyObject* name = PyUnicode_FromString(cubridge_status_name((int)status));
  if (code == NULL || name == NULL || PyObject_SetAttrString(exc, "status", code) < 0 ||
      PyObject_SetAttrString(exc, "status_name", name) < 0) {
    Py_XDECREF(code);
    Py_XDECREF(name);
    Py_DECREF(exc);
    return NULL;
  }
  Py_DECREF(code);
  Py_DECREF(name);
  PyErr_SetObject(type, exc);
  Py_DECREF(exc);
  return NULL;
}
