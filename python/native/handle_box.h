/* A C library handle (communicator, stream, graph) in a capsule. The capsule
 * holds a box with the handle: closing empties the box (a capsule's own
 * pointer cannot be set to NULL), and collection destroys whatever is still
 * in it. */
#ifndef CUBRIDGE_CEXT_HANDLE_BOX_H_
#define CUBRIDGE_CEXT_HANDLE_BOX_H_

#include "common.h"

/* One kind of handle: its capsule name, the argument name and the noun its
 * errors use, and how to destroy it. */
typedef struct cb_box_kind {
  const char* capsule; /* "cubridge.comm" */
  const char* arg;     /* "comm" */
  const char* what;    /* "communicator" */
  cubridge_status (*destroy)(void* handle);
} cb_box_kind;

/* A capsule holding `handle`; NULL with an error, `handle` destroyed. */
PyObject* cb_box_wrap(const cb_box_kind* kind, void* handle);
/* The handle in `obj`, or NULL with TypeError ("<arg> must be a <what>") or
 * ValueError ("the <what> is closed"). */
void* cb_box_live(PyObject* obj, const cb_box_kind* kind);
/* Like cb_box_live, for a call that uses the handle with the GIL released:
 * one such call at a time (NCCL and CUDA graphs take no concurrent calls on
 * one object), the others wait for it. Pair with cb_box_done. */
void* cb_box_use(PyObject* obj, const cb_box_kind* kind);
void cb_box_done(PyObject* obj);
/* Empties the box and returns its handle, now the caller's to destroy: NULL
 * when it was closed already (no error), or with TypeError as above. A
 * handle in use by a call is destroyed when that call is done (NULL here). */
void* cb_box_take(PyObject* obj, const cb_box_kind* kind);

#endif /* CUBRIDGE_CEXT_HANDLE_BOX_H_ */
