/* Capsules holding C library handles (handle_box.h). */
#include "handle_box.h"

#include "errors.h"

typedef struct {
  void* handle; /* NULL once closed */
  const cb_box_kind* kind;
} cb_box;

static void cb_box_free(PyObject* capsule) {
  cb_box* box = (cb_box*)PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
  if (box == NULL) return;
  if (box->handle != NULL) (void)box->kind->destroy(box->handle);
  PyMem_Free(box);
}

PyObject* cb_box_wrap(const cb_box_kind* kind, void* handle) {
  cb_box* box = (cb_box*)PyMem_Malloc(sizeof *box);
  if (box == NULL) {
    (void)kind->destroy(handle);
    return PyErr_NoMemory();
  }
  box->handle = handle;
  box->kind = kind;
  PyObject* capsule = PyCapsule_New(box, kind->capsule, cb_box_free);
  if (capsule == NULL) {
    (void)kind->destroy(handle);
    PyMem_Free(box);
  }
  return capsule;
}

static cb_box* cb_box_of(PyObject* obj, const cb_box_kind* kind) {
  if (!PyCapsule_IsValid(obj, kind->capsule)) {
    char wanted[64];
    PyOS_snprintf(wanted, sizeof wanted, "a %s", kind->what);
    cb_type_error(kind->arg, wanted, obj);
    return NULL;
  }
  return (cb_box*)PyCapsule_GetPointer(obj, kind->capsule);
}

void* cb_box_live(PyObject* obj, const cb_box_kind* kind) {
  cb_box* box = cb_box_of(obj, kind);
  if (box == NULL) return NULL;
  if (box->handle == NULL) PyErr_Format(PyExc_ValueError, "the %s is closed", kind->what);
  return box->handle;
}

void* cb_box_take(PyObject* obj, const cb_box_kind* kind) {
  cb_box* box = cb_box_of(obj, kind);
  if (box == NULL) return NULL;
  void* handle = box->handle;
  box->handle = NULL; /* closed from here on, whatever the destroy says */
  return handle;
}
