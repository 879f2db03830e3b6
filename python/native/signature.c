/* Keyword arguments, text signatures and docstrings for the ops (signature.h). */
#include "signature.h"

#include <stdlib.h>
#include <string.h>

#include "module.h"

static const char* const cb_keyword_texts[CB_KW_COUNT] = {
#define CB_KEYWORD_TEXT(name) #name,
    CB_KEYWORDS(CB_KEYWORD_TEXT)
#undef CB_KEYWORD_TEXT
};

const char* cb_keyword_text(int id) { return cb_keyword_texts[id]; }

int cb_keywords_init(PyObject* module, cb_module* m) {
  (void)module;
  for (int i = 0; i < CB_KW_COUNT; i++) {
    if ((m->keywords.names[i] = PyUnicode_InternFromString(cb_keyword_texts[i])) == NULL) return -1;
  }
  return 0;
}

int cb_keywords_traverse(cb_module* m, visitproc visit, void* arg) {
  CB_VISIT_ALL(m->keywords.names, CB_KW_COUNT);
  return 0;
}

void cb_keywords_clear(cb_module* m) { CB_CLEAR_ALL(m->keywords.names, CB_KW_COUNT); }

/* The index of keyword `kw` among sig's params, or -1: by pointer (keywords
 * written in a call are interned), else by value. */
static int cb_param_index(const cb_keywords* st, const cb_signature* sig, PyObject* kw) {
  for (int i = 0; i < sig->count; i++) {
    if (kw == st->names[sig->params[i]]) return i;
  }
  for (int i = 0; i < sig->count; i++) {
    if (PyUnicode_Compare(kw, st->names[sig->params[i]]) == 0) return i;
  }
  return -1;
}

PyObject* cb_call_signature(PyObject* module, const cb_signature* sig, PyObject* const* args,
                            Py_ssize_t nargs, PyObject* kwnames) {
  const int count = sig->count;
  if (nargs > sig->npos) {
    PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd were given",
                 sig->name, sig->npos, sig->npos == 1 ? "" : "s", nargs);
    return NULL;
  }
  PyObject* slots[CB_MAX_PARAMS] = {NULL};
  for (Py_ssize_t i = 0; i < nargs; i++) slots[i] = args[i];
  Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
  const cb_keywords* st = nkw > 0 ? &cb_module_of(module)->keywords : NULL;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    PyObject* kw = PyTuple_GetItem(kwnames, k); /* borrowed */
    int i = cb_param_index(st, sig, kw);
    if (i < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", sig->name, kw);
      return NULL;
    }
    if (slots[i] != NULL) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", sig->name,
                   cb_keyword_text(sig->params[i]));
      return NULL;
    }
    slots[i] = args[nargs + k];
  }
  PyObject* made[CB_MAX_PARAMS] = {NULL}; /* float defaults made for this call */
  PyObject* result = NULL;
  for (int i = 0; i < count; i++) {
    if (slots[i] != NULL) continue;
    const char* d = sig->defaults[i];
    if (d == NULL) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", sig->name,
                   cb_keyword_text(sig->params[i]), i + 1);
      goto done;
    }
    if (d[0] == 'N') { /* "None" */
      slots[i] = Py_None;
    } else if ((slots[i] = made[i] = PyFloat_FromDouble(strtod(d, NULL))) == NULL) {
      goto done;
    }
  }
  result = sig->impl(module, slots, count);
done:
  for (int i = 0; i < count; i++) Py_XDECREF(made[i]);
  return result;
}

/* "name($module, /, a, b, *, out=None, stream=None)\n--\n\n" */
static PyObject* cb_text_signature(const cb_signature* sig) {
  PyObject* parts = PyUnicode_FromFormat("%s($module, /", sig->name);
  for (int i = 0; parts != NULL && i < sig->count; i++) {
    const char* star = i == sig->npos ? ", *" : "";
    PyObject* next =
        sig->defaults[i] == NULL
            ? PyUnicode_FromFormat("%U%s, %s", parts, star, cb_keyword_text(sig->params[i]))
            : PyUnicode_FromFormat("%U%s, %s=%s", parts, star, cb_keyword_text(sig->params[i]),
                                   sig->defaults[i]);
    Py_DECREF(parts);
    parts = next;
  }
  if (parts == NULL) return NULL;
  PyObject* text = PyUnicode_FromFormat("%U)\n--\n\n", parts);
  Py_DECREF(parts);
  return text;
}

/* A copy of `text`'s UTF-8 that lives as long as the process. */
static char* cb_lasting_utf8(PyObject* text) {
  Py_ssize_t size;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
  if (utf8 == NULL) return NULL;
  char* copy = malloc((size_t)size + 1);
  if (copy == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  memcpy(copy, utf8, (size_t)size + 1);
  return copy;
}

PyObject* cb_signature_function(PyObject* module, const cb_signature* sig, PyCFunction entry,
                                PyObject* module_name, PyObject* doc) {
  if (!PyUnicode_Check(doc) || !PyUnicode_Check(module_name)) {
    PyErr_SetString(PyExc_TypeError, "bind: the module name and the docstring must be str");
    return NULL;
  }
  PyObject* head = cb_text_signature(sig);
  PyObject* full = head != NULL ? PyUnicode_Concat(head, doc) : NULL;
  Py_XDECREF(head);
  char* text = full != NULL ? cb_lasting_utf8(full) : NULL;
  Py_XDECREF(full);
  if (text == NULL) return NULL;
  PyMethodDef* def = calloc(1, sizeof *def);
  if (def == NULL) {
    free(text);
    return PyErr_NoMemory();
  }
  def->ml_name = sig->name;
  def->ml_meth = entry;
  def->ml_flags = METH_FASTCALL | METH_KEYWORDS;
  def->ml_doc = text;
  PyObject* fn = PyCFunction_NewEx(def, module, module_name);
  if (fn == NULL) {
    free(text);
    free(def);
  }
  return fn;
}
