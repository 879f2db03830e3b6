/* cubridge.Error and its subclasses. The statuses and their names come from the
 * C ABI (cubridge_status_name); a class is the CamelCase name plus "Error"
 * ("OUT_OF_MEMORY" -> OutOfMemoryError). Only what Python adds is listed here. */
#include "errors.h"

#include <ctype.h>
#include <string.h>

#include "module.h"

/* Python's view of some statuses: another class name, a builtin base, a doc. */
static const struct {
  cubridge_status status;
  const char* name;            /* NULL: derived from the status name */
  cubridge_status subclass_of; /* CUBRIDGE_OK: of cubridge.Error */
  const char* doc;
} cb_python_extras[] = {
    {CUBRIDGE_ERR_INVALID_ARGUMENT, NULL, CUBRIDGE_OK,
     "The library rejected an argument (also a ValueError)."},
    {CUBRIDGE_ERR_UNSUPPORTED_DTYPE, NULL, CUBRIDGE_OK,
     "The dtype is unknown or not valid for the op (also a TypeError)."},
    {CUBRIDGE_ERR_OUT_OF_MEMORY, NULL, CUBRIDGE_OK,
     "Host, pinned, device or managed memory ran out (also a MemoryError)."},
    {CUBRIDGE_ERR_LAUNCH_FAILED, "LaunchError", CUBRIDGE_OK, "A kernel failed to launch or run."},
    {CUBRIDGE_ERR_CUDA_STICKY, NULL, CUBRIDGE_ERR_CUDA,
     "The CUDA context is corrupt; no more GPU work is possible in this process."},
};
#define CB_NUM_EXTRAS (sizeof cb_python_extras / sizeof cb_python_extras[0])

static PyObject* cb_builtin_base(cubridge_status status) {
  switch (status) {
    case CUBRIDGE_ERR_INVALID_ARGUMENT:
      return PyExc_ValueError;
    case CUBRIDGE_ERR_UNSUPPORTED_DTYPE:
      return PyExc_TypeError;
    case CUBRIDGE_ERR_OUT_OF_MEMORY:
      return PyExc_MemoryError;
    default:
      return NULL;
  }
}

/* "OUT_OF_MEMORY" -> "OutOfMemoryError". */
static void cb_class_name(const char* status_name, char* buf, size_t len) {
  size_t j = 0;
  int upper = 1;
  for (const char* p = status_name; *p != '\0' && j + 6 < len; p++) {
    if (*p == '_') {
      upper = 1;
      continue;
    }
    buf[j++] = (char)(upper ? toupper((unsigned char)*p) : tolower((unsigned char)*p));
    upper = 0;
  }
  strcpy(buf + j, "Error");
}

static PyObject* cb_make_class(const char* name, const char* doc, PyObject* bases) {
  char qualified[96];
  PyOS_snprintf(qualified, sizeof qualified, "cubridge.%s", name);
  return PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
}

static int cb_add_class(PyObject* module, cb_errors* st, int status) {
  const char* status_name = cubridge_status_name(status);
  char name[64], doc[160];
  cb_class_name(status_name, name, sizeof name);
  PyOS_snprintf(doc, sizeof doc, "The library reported status %s.", status_name);
  cubridge_status parent = CUBRIDGE_OK;
  const char* doc_text = doc;
  for (size_t i = 0; i < CB_NUM_EXTRAS; i++) {
    if ((int)cb_python_extras[i].status != status) continue;
    if (cb_python_extras[i].name != NULL) strcpy(name, cb_python_extras[i].name);
    parent = cb_python_extras[i].subclass_of;
    doc_text = cb_python_extras[i].doc;
  }
  PyObject* first = parent != CUBRIDGE_OK && st->classes[parent] ? st->classes[parent] : st->base;
  PyObject* extra = cb_builtin_base((cubridge_status)status);
  PyObject* bases = extra ? PyTuple_Pack(2, first, extra) : PyTuple_Pack(1, first);
  if (bases == NULL) return -1;
  st->classes[status] = cb_make_class(name, doc_text, bases);
  Py_DECREF(bases);
  if (st->classes[status] == NULL) return -1;
  return PyModule_AddObjectRef(module, name, st->classes[status]);
}

int cb_errors_init(PyObject* module, cb_module* m) {
  cb_errors* st = &m->errors;
  st->count = cubridge_status_count();
  if (st->count < 1 || st->count > CB_MAX_STATUSES) {
    PyErr_Format(PyExc_ImportError, "cubridge: the library reports %d statuses (at most %d fit)",
                 st->count, CB_MAX_STATUSES);
    return -1;
  }
  st->base = cb_make_class("Error",
                           "Base class of the errors the cubridge library reports. "
                           "`status` holds the C status code, `status_name` its name.",
                           NULL);
  if (st->base == NULL || PyModule_AddObjectRef(module, "Error", st->base) < 0) return -1;
  /* Parents first: a status may name a lower-numbered one as its parent. */
  for (int status = 1; status < st->count; status++) {
    if (cb_add_class(module, st, status) < 0) return -1;
  }
  return 0;
}

int cb_errors_traverse(cb_module* m, visitproc visit, void* arg) {
  Py_VISIT(m->errors.base);
  CB_VISIT_ALL(m->errors.classes, CB_MAX_STATUSES);
  return 0;
}

void cb_errors_clear(cb_module* m) {
  Py_CLEAR(m->errors.base);
  CB_CLEAR_ALL(m->errors.classes, CB_MAX_STATUSES);
}

PyObject* cb_raise_status(cb_module* m, cubridge_status status) {
  const cb_errors* st = &m->errors;
  const char* msg = cubridge_last_error();
  if (msg == NULL || msg[0] == '\0') msg = cubridge_status_name((int)status);
  PyObject* type = (int)status > 0 && (int)status < st->count && st->classes[status]
                       ? st->classes[status]
                       : st->base;
  PyObject* exc = PyObject_CallFunction(type, "s", msg);
  if (exc == NULL) return NULL;
  PyObject* code = PyLong_FromLong((long)status);
  PyObject* name = PyUnicode_FromString(cubridge_status_name((int)status));
  int rc = code == NULL || name == NULL || PyObject_SetAttrString(exc, "status", code) < 0 ||
                   PyObject_SetAttrString(exc, "status_name", name) < 0
               ? -1
               : 0;
  Py_XDECREF(code);
  Py_XDECREF(name);
  if (rc == 0) PyErr_SetObject(type, exc);
  Py_DECREF(exc);
  return NULL;
}

PyObject* cb_none_or_raise(cb_module* m, cubridge_status status) {
  if (status != CUBRIDGE_OK) return cb_raise_status(m, status);
  Py_RETURN_NONE;
}

int cb_check(cb_module* m, cubridge_status status) {
  if (status == CUBRIDGE_OK) return 0;
  cb_raise_status(m, status);
  return -1;
}

PyObject* cb_type_error(const char* argname, const char* wanted, PyObject* got) {
  PyObject* name = PyType_GetName(Py_TYPE(got));
  if (name == NULL) return NULL;
  PyErr_Format(PyExc_TypeError, "%s must be %s, got %U", argname, wanted, name);
  Py_DECREF(name);
  return NULL;
}

PyObject* cb_invalid(cb_module* m, const char* message) {
  PyErr_SetString(m->errors.classes[CUBRIDGE_ERR_INVALID_ARGUMENT], message);
  return NULL;
}
