/* cubridge.Array as C sees it: the struct, making one, copying one, and the
 * ordering of work on it. The Python type lives in array_type.c. */
#ifndef CUBRIDGE_CEXT_ARRAY_H_
#define CUBRIDGE_CEXT_ARRAY_H_

#include "state.h"

typedef struct cb_array {
  PyObject_HEAD
  void* ptr; /* from cubridge_malloc_async */
  int kind;  /* cubridge_memory: DEVICE, MANAGED or PINNED */
  int dtype; /* cubridge_dtype */
  int ndim;
  int device;        /* device index (0 on the CPU backend) */
  Py_ssize_t* shape; /* ndim entries, then ndim byte strides */
  Py_ssize_t* strides;
  size_t n;
  size_t nbytes;
  /* Stream ordering (CUDA backend). The allocation counts as a write. */
  int pending;            /* a write may still be in flight ... */
  uintptr_t write_stream; /* ... on this stream (0: the default stream) */
  cubridge_event event;   /* when live: completes after every recorded use */
  int event_live;
  uintptr_t event_stream; /* where the event was last recorded */
  int default_use;        /* used on the default stream (handle 0): never parked then */
  int exported;           /* handed out (DLPack, CUDA array interface, .ptr): uses unseen */
  /* A stream of this library's (cubridge.Stream) used since: the event is
   * recorded there only when something needs it (cb_array_flush); 0: none. */
  uintptr_t lazy_stream;
} cb_array;

static inline int cb_is_array(const cb_state* st, PyObject* obj) {
  return Py_IS_TYPE(obj, st->array_type);
}
/* A new uninitialised Array of `kind` on `device` (-1: the stream's, else the
 * caller's), allocated stream-ordered on `stream` (handle `stream_handle`):
 * cubridge_malloc_async, the library's caching pool, or for device memory on
 * a stream other than the default one, when `may_unpark` (the stream is known
 * not to record a graph), a parked block (parked.h). */
cb_array* cb_array_new(cb_state* st, int ndim, const int64_t* shape, int dtype, int kind,
                       int device, uintptr_t stream_handle, cubridge_stream stream, int may_unpark);
/* A new Array of `kind` holding a copy of `self` (on the default stream). */
cb_array* cb_array_copy(cb_state* st, cb_array* self, int kind);
/* Gives the memory back to the pool once its uses are done, or parks it
 * behind its event, or while a recording runs keeps it for its end (the
 * type's dealloc; `st` may be NULL at the end). */
void cb_array_free_memory(cb_state* st, cb_array* self);
/* Frees the memory of the Arrays collected while a cubridge.Stream recorded
 * (the recording has ended). */
void cb_array_free_deferred(cb_state* st);
/* 'device' | 'managed' | 'pinned' -> CUBRIDGE_MEMORY_*; -1 with ValueError. */
int cb_parse_memory(const cb_state* st, PyObject* obj);
/* A device argument: None (-1: the current device) or an index >= 0 that the
 * library accepts; -2 with an error. */
int cb_parse_device(cb_state* st, PyObject* obj);
/* True when the host may read the Array's memory directly. */
int cb_array_host_accessible(cb_state* st, const cb_array* self);
/* Orders the pending write of the Array before its next use: by the host
 * (`for_host`: waits for that write only), or by work on the stream `consumer`
 * (that stream waits for an event; the host does not; CB_STREAM_UNORDERED:
 * nothing). */
int cb_array_settle(cb_state* st, cb_array* self, int for_host, uintptr_t consumer);
/* `stream` (handle `handle`) waits for every earlier use of the Array on other
 * streams, reads included: before a write there, which must not overtake
 * them (settle orders only after the last write), and for a use on a stream
 * of this library's (cb_array_used). -1 with an error. */
int cb_array_after_uses(cb_state* st, cb_array* self, uintptr_t handle, cubridge_stream stream);
/* Makes the event cover the uses on a stream of this library's that were
 * not recorded yet (a no-op when that stream was closed: closing waits for
 * its work). -1 with an error. */
int cb_array_flush(cb_state* st, cb_array* self);
/* After a call on `stream` (handle `handle`): the Array was read, or written. */
void cb_array_used(cb_state* st, cb_array* self, uintptr_t handle, cubridge_stream stream,
                   int written);
/* The (device_type, device_id) DLPack gives for the Array. */
void cb_array_dldevice(cb_state* st, const cb_array* self, int32_t* type, int32_t* id);

#endif /* CUBRIDGE_CEXT_ARRAY_H_ */
