/* The type cache of known array types. */
#include "known_types.h"

#include <string.h>

#include "module.h"

/* Whether `type` is the class `name` of module `module` as imported: a class
 * that only calls itself so is read by the generic protocols. */
static int cb_is_class(PyTypeObject* type, const char* module, const char* name) {
  PyObject* module_name = PyUnicode_FromString(module);
  PyObject* m = module_name ? PyImport_GetModule(module_name) : NULL;
  PyObject* cls = m ? PyObject_GetAttrString(m, name) : NULL;
  int is = cls == (PyObject*)type;
  Py_XDECREF(cls);
  Py_XDECREF(m);
  Py_XDECREF(module_name);
  PyErr_Clear();
  return is;
}

/* Whether `type` is numpy.ma.MaskedArray or a subclass (its __module__ is
 * numpy.ma.core in NumPy 1.x, numpy.ma in 2.x: the class itself is asked). */
static int cb_is_masked(PyTypeObject* type) {
  PyObject* name = PyUnicode_FromString("numpy.ma");
  PyObject* ma = name ? PyImport_GetModule(name) : NULL; /* only when imported */
  PyObject* cls = ma ? PyObject_GetAttrString(ma, "MaskedArray") : NULL;
  int is = cls != NULL && PyType_Check(cls) && PyType_IsSubtype(type, (PyTypeObject*)cls);
  Py_XDECREF(cls);
  Py_XDECREF(ma);
  Py_XDECREF(name);
  PyErr_Clear();
  return is;
}

/* CB_KNOWN_* of `type`; *from_torch is set when its module is torch's. */
static int cb_classify(PyTypeObject* type, int* from_torch) {
  PyObject* module = PyObject_GetAttrString((PyObject*)type, "__module__");
  PyObject* qualname = module ? PyType_GetQualName(type) : NULL;
  int known = CB_KNOWN_NONE;
  *from_torch = 0;
  if (qualname != NULL && PyUnicode_Check(module)) {
    const char* m = PyUnicode_AsUTF8AndSize(module, NULL);
    const char* q = PyUnicode_AsUTF8AndSize(qualname, NULL);
    if (m != NULL && q != NULL) {
      if (strcmp(m, "numpy") == 0 && strcmp(q, "ndarray") == 0) known = CB_KNOWN_NUMPY;
      if (strcmp(m, "torch") == 0 && strcmp(q, "Tensor") == 0) known = CB_KNOWN_TORCH;
      if (strcmp(m, "cupy") == 0 && strcmp(q, "ndarray") == 0) known = CB_KNOWN_CUPY;
      if (known != CB_KNOWN_NONE && !cb_is_class(type, m, q)) known = CB_KNOWN_NONE;
      *from_torch = strcmp(m, "torch") == 0 || strncmp(m, "torch.", 6) == 0;
    }
  }
  Py_XDECREF(module);
  Py_XDECREF(qualname);
  PyErr_Clear();
  if (known == CB_KNOWN_NONE && cb_is_masked(type)) known = CB_KNOWN_MASKED;
  return known;
}

static int cb_stream_by(cb_module* m, PyTypeObject* type, int from_torch) {
  PyObject* t = (PyObject*)type;
  if (type == m->types.stream_type) return CB_STREAM_BY_SLOT;
  int by = CB_STREAM_BY_INSTANCE;
  if (from_torch && PyObject_HasAttr(t, m->names.cuda_stream)) {
    by = CB_STREAM_BY_CUDA_STREAM;
  } else if (PyObject_HasAttr(t, m->names.cuda_stream_proto)) {
    by = CB_STREAM_BY_PROTOCOL;
  } else if (PyObject_HasAttr(t, m->names.ptr)) {
    by = CB_STREAM_BY_PTR;
  } else if (PyObject_HasAttr(t, m->names.cuda_stream)) {
    by = CB_STREAM_BY_CUDA_STREAM;
  }
  PyErr_Clear();
  return by;
}

static int cb_where_cai(cb_module* m, PyTypeObject* type) {
  if (PyObject_HasAttr((PyObject*)type, m->names.cai)) return CB_CAI_TYPE;
  /* A __getattr__ (a proxy's) may serve it: ask each instance. */
  if (PyType_GetSlot(type, Py_tp_getattro) != (void*)PyObject_GenericGetAttr) return CB_CAI_TYPE;
  PyObject* offset = PyObject_GetAttrString((PyObject*)type, "__dictoffset__");
  long dictoffset = offset ? PyLong_AsLong(offset) : -1;
  Py_XDECREF(offset);
  PyErr_Clear();
  return dictoffset == 0 ? CB_CAI_NONE : CB_CAI_DICT; /* unsure: look in the instance */
}

const cb_type_hint* cb_type_hint_of(cb_module* m, PyTypeObject* type) {
  cb_types* st = &m->types;
  for (int i = 0; i < CB_TYPE_HINTS; i++) {
    if (st->hints[i].type == type) return &st->hints[i];
  }
  int from_torch;
  int known = cb_classify(type, &from_torch);
  int cai = cb_where_cai(m, type);
  int stream = cb_stream_by(m, type, from_torch);
  cb_type_hint* slot = &st->hints[st->next];
  st->next = (st->next + 1) % CB_TYPE_HINTS;
  PyTypeObject* old = slot->type;
  slot->type = (PyTypeObject*)Py_NewRef((PyObject*)type);
  Py_XDECREF((PyObject*)old);
  slot->known = known;
  slot->cai = cai;
  slot->stream = stream;
  return slot;
}

const cb_type_hint* cb_type_hint_renew(cb_module* m, PyTypeObject* type) {
  cb_types* st = &m->types;
  for (int i = 0; i < CB_TYPE_HINTS; i++) {
    if (st->hints[i].type != type) continue;
    st->hints[i].type = NULL;
    Py_DECREF((PyObject*)type);
  }
  return cb_type_hint_of(m, type);
}

int cb_types_traverse(cb_module* m, visitproc visit, void* arg) {
  for (int i = 0; i < CB_TYPE_HINTS; i++) Py_VISIT((PyObject*)m->types.hints[i].type);
  Py_VISIT((PyObject*)m->types.stream_type);
  return 0;
}

void cb_types_clear(cb_module* m) {
  for (int i = 0; i < CB_TYPE_HINTS; i++) Py_CLEAR(m->types.hints[i].type);
  Py_CLEAR(m->types.stream_type);
}
