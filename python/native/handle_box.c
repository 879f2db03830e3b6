/* Capsules holding C library handles (handle_box.h). */
#include "handle_box.h"

#include "errors.h"

typedef struct {
  void* handle; /* NULL once closed */
  const cb_box_kind* kind;
  PyThread_type_lock lock; /* held by the call using the handle (cb_box_use) */
  int users;               /* calls using or waiting for the handle */
  void* deferred;          /* closed while in use: destroyed by the last user */
} cb_box;

static void cb_box_free(PyObject* capsule) {
  cb_box* box = (cb_box*)PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
  if (box == NULL) return;
  if (box->handle != NULL) (void)box->kind->destroy(box->handle);
  if (box->deferred != NULL) (void)box->kind->destroy(box->deferred);
  PyThread_free_lock(box->lock);
  PyMem_Free(box);
}

PyObject* cb_box_wrap(const cb_box_kind* kind, void* handle) {
  cb_box* box = (cb_box*)PyMem_Calloc(1, sizeof *box);
  PyThread_type_lock lock = box != NULL ? PyThread_allocate_lock() : NULL;
  if (lock == NULL) {
    (void)kind->destroy(handle);
    PyMem_Free(box);
    return PyErr_NoMemory();
  }
  box->handle = handle;
  box->kind = kind;
  box->lock = lock;
  PyObject* capsule = PyCapsule_New(box, kind->capsule, cb_box_free);
  if (capsule == NULL) {
    (void)kind->destroy(handle);
    PyThread_free_lock(lock);
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

void* cb_box_use(PyObject* obj, const cb_box_kind* kind) {
  if (cb_box_live(obj, kind) == NULL) return NULL;
  cb_box* box = (cb_box*)PyCapsule_GetPointer(obj, kind->capsule);
  box->users++;
  if (!PyThread_acquire_lock(box->lock, NOWAIT_LOCK)) {
    Py_BEGIN_ALLOW_THREADS;
    PyThread_acquire_lock(box->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS;
  }
  void* handle = cb_box_live(obj, kind); /* closed while this call waited? */
  if (handle == NULL) cb_box_done(obj);
  return handle;
}

void cb_box_done(PyObject* obj) {
  cb_box* box = (cb_box*)PyCapsule_GetPointer(obj, PyCapsule_GetName(obj));
  PyThread_release_lock(box->lock);
  if (--box->users == 0 && box->deferred != NULL) {
    void* handle = box->deferred;
    box->deferred = NULL;
    (void)box->kind->destroy(handle);
  }
}

void* cb_box_take(PyObject* obj, const cb_box_kind* kind) {
  cb_box* box = cb_box_of(obj, kind);
  if (box == NULL) return NULL;
  void* handle = box->handle;
  box->handle = NULL; /* closed from here on, whatever the destroy says */
  if (handle != NULL && box->users > 0) {
    box->deferred = handle; /* the last call using it destroys it */
    return NULL;
  }
  return handle;
}
