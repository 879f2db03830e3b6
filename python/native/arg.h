/*
 * One array argument: the runtime's view of it (cubridge_view: pointer, dtype,
 * shape, strides, memory, device, readiness), the storage the view points
 * into, and what keeps the memory alive until the call ends. The readers
 * (import.h) fill it, whatever protocol the argument came through; the
 * runtime checks and orders it (cubridge_call_add).
 */
#ifndef CUBRIDGE_CEXT_ARG_H_
#define CUBRIDGE_CEXT_ARG_H_

#include "common.h"

typedef struct cb_arg {
  cubridge_view v; /* v.shape points at shape, v.strides (when set) at strides */
  int64_t shape[CB_MAX_NDIM];
  int64_t strides[CB_MAX_NDIM];
  char dtype_desc[64]; /* v.dtype_desc: what an unsupported dtype was */
  /* owners: what keeps the memory alive until cb_arg_release */
  PyObject* keep;  /* the argument (an Array, the producer) or its interface dict; owned */
  PyObject* array; /* a cubridge.Array argument (borrowed from keep), else NULL */
  Py_buffer buffer;
  int has_buffer;
  void* dl; /* an imported DLManagedTensor(Versioned), deleted on release */
  int dl_versioned;
} cb_arg;

/* An empty argument named `name` (which must outlive it). The struct must not
 * move afterwards: the view points into it. */
void cb_arg_init(cb_arg* a, const char* name);
/* Releases the owners; keeps a pending exception (deleters may run Python). */
void cb_arg_release(cb_arg* a);
/* Back to empty, keeping the name (a reader gave up; another one reads). */
void cb_arg_reset(cb_arg* a);

/* A tuple of at most `max` int64s into out[0..*len): 0; CB_TUPLE_TOO_LONG
 * for a longer tuple (*len set, out not; the check names the dimensions);
 * -1 when `t` is not a tuple of int64s. No exception either way: the caller
 * names what was wrong. */
#define CB_TUPLE_TOO_LONG 1
int cb_int64_tuple(PyObject* t, int64_t* out, int max, int* len);
/* a->strides, given in bytes, into elements of `itemsize` (a stride that is
 * not a multiple: CUBRIDGE_STRIDE_NOT_WHOLE); sets v.strides. Nothing for an
 * unknown dtype (itemsize 0): the check refuses the dtype first. */
void cb_arg_strides_from_bytes(cb_arg* a, size_t itemsize);

#endif /* CUBRIDGE_CEXT_ARG_H_ */
