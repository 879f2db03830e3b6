/*
 * The one view of an array argument, whatever protocol it came through (the
 * buffer protocol, __cuda_array_interface__ v3, DLPack versioned or legacy, or a
 * cubridge.Array). Importers fill it; cb_view_validate checks it, the same way
 * for all of them; cb_view_release gives back what the import holds.
 */
#ifndef CUBRIDGE_CEXT_VIEW_H_
#define CUBRIDGE_CEXT_VIEW_H_

#include "state.h"

/* A stride the validator reports as not C-contiguous (a byte stride that is not
 * a multiple of the item size). */
#define CB_BAD_STRIDE INT64_MIN

typedef struct cb_view {
  const char* name; /* argument name used in error messages */
  void* data;
  int dtype;           /* cubridge_dtype; -1: the producer's type is unsupported ... */
  char dtype_desc[64]; /* ... and this says what it was */
  int ndim;
  int64_t shape[CB_MAX_NDIM];
  int64_t strides[CB_MAX_NDIM]; /* in elements, when has_strides */
  int has_strides;
  size_t n;      /* elements, set by the validator */
  size_t nbytes; /* set by the validator */
  int memory;    /* cubridge_memory: where the producer says the data lives */
  int device;    /* CUDA device index; -1 for host memory */
  int readonly;
  /* A foreign producer's stream (torch's current, the one a CUDA array
   * interface names) that is not the op's: the op was ordered after it, and it
   * is ordered after the op (cb_call_end), so the producer's later work and
   * allocator see the op's reads and writes done. 0: none. */
  uintptr_t producer_stream;
  /* owners: what keeps the memory alive until cb_view_release */
  PyObject* array; /* a cubridge.Array argument (owned) */
  PyObject* keep;  /* any other object kept alive (owned) */
  Py_buffer buffer;
  int has_buffer;
  void* dl; /* imported DLManagedTensor(Versioned), deleted on release */
  int dl_versioned;
} cb_view;

void cb_view_init(cb_view* v, const char* name);
/* Checks ndim, dimensions (none negative, the element and byte counts fit),
 * the dtype, C-contiguity and, when `writable`, write access; sets n and
 * nbytes. -1 with ValueError/TypeError naming the argument. */
int cb_view_validate(const cb_state* st, cb_view* v, int writable);
/* Releases the owners; keeps a pending exception (deleters may run Python). */
void cb_view_release(cb_view* v);

/* Helpers for importers that read Python objects. */
/* A tuple of at most `max` int64s into out[0..*len): 0; CB_TUPLE_TOO_LONG
 * for a longer tuple (*len set, out not); -1 when `t` is not a tuple of
 * int64s. No exception either way: the caller names what was wrong. */
#define CB_TUPLE_TOO_LONG 1
int cb_int64_tuple(PyObject* t, int64_t* out, int max, int* len);
/* v->strides[0..ndim), given in bytes, into elements (CB_BAD_STRIDE where one
 * is not a multiple of the item size); has_strides set. Left unset for a dtype
 * cubridge lacks: the validator refuses the dtype first. */
void cb_view_strides_from_bytes(const cb_state* st, cb_view* v);
/* What the runtime says of v->data: its memory kind and device (when it
 * answers; a NULL pointer is not asked). */
void cb_view_ask_memory(cb_view* v);

#endif /* CUBRIDGE_CEXT_VIEW_H_ */
