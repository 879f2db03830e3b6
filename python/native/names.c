/* Interned names (names.h). */
#include "names.h"

#include "dlpack.h"
#include "module.h"

#define CB_NAME_COUNT (sizeof(cb_names) / sizeof(PyObject*))

/* The struct is references only: seen as an array of them. */
static PyObject** cb_names_refs(cb_module* m) { return (PyObject**)&m->names; }

int cb_names_init(PyObject* module, cb_module* m) {
  (void)module;
#define CB_INTERN(field, text) \
  if ((m->names.field = PyUnicode_InternFromString(text)) == NULL) return -1;
  CB_NAMES(CB_INTERN)
#undef CB_INTERN
  m->names.dlpack_version = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  return m->names.dlpack_version == NULL ? -1 : 0;
}

int cb_names_traverse(cb_module* m, visitproc visit, void* arg) {
  CB_VISIT_ALL(cb_names_refs(m), CB_NAME_COUNT);
  return 0;
}

void cb_names_clear(cb_module* m) { CB_CLEAR_ALL(cb_names_refs(m), CB_NAME_COUNT); }
