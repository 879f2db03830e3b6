/* The type cache of known array types. */
#include "known_types.h"

#include <string.h>

static int cb_classify(PyTypeObject* type) {
  PyObject* module = PyObject_GetAttrString((PyObject*)type, "__module__");
  PyObject* qualname = module ? PyType_GetQualName(type) : NULL;
  int known = CB_KNOWN_NONE;
  if (qualname != NULL && PyUnicode_Check(module)) {
    const char* m = PyUnicode_AsUTF8AndSize(module, NULL);
    const char* q = PyUnicode_AsUTF8AndSize(qualname, NULL);
    if (m != NULL && q != NULL) {
      if (strcmp(m, "numpy") == 0 && strcmp(q, "ndarray") == 0) known = CB_KNOWN_NUMPY;
      if (strcmp(m, "torch") == 0 && strcmp(q, "Tensor") == 0) known = CB_KNOWN_TORCH;
    }
  }
  Py_XDECREF(module);
  Py_XDECREF(qualname);
  PyErr_Clear();
  return known;
}

static int cb_where_cai(cb_state* st, PyTypeObject* type) {
  if (PyObject_HasAttr((PyObject*)type, st->s_cai)) return CB_CAI_TYPE;
  PyObject* offset = PyObject_GetAttrString((PyObject*)type, "__dictoffset__");
  long dictoffset = offset ? PyLong_AsLong(offset) : -1;
  Py_XDECREF(offset);
  PyErr_Clear();
  return dictoffset == 0 ? CB_CAI_NONE : CB_CAI_DICT; /* unsure: look in the instance */
}

const cb_type_hint* cb_type_hint_of(cb_state* st, PyTypeObject* type) {
  for (int i = 0; i < CB_TYPE_HINTS; i++) {
    if (st->hints[i].type == type) return &st->hints[i];
  }
  int known = cb_classify(type);
  int cai = cb_where_cai(st, type);
  cb_type_hint* slot = &st->hints[st->next_hint];
  st->next_hint = (st->next_hint + 1) % CB_TYPE_HINTS;
  PyTypeObject* old = slot->type;
  slot->type = (PyTypeObject*)Py_NewRef((PyObject*)type);
  Py_XDECREF((PyObject*)old);
  slot->known = known;
  slot->cai = cai;
  return slot;
}
