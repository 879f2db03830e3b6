/* cubridge.Array as C sees it: a runtime array (the memory and the state of
 * its uses, kept by the C library: cubridge/runtime.h) with Python's shape.
 * The Python type lives in array_type.c. */
#ifndef CUBRIDGE_CEXT_ARRAY_H_
#define CUBRIDGE_CEXT_ARRAY_H_

#include "common.h"

typedef struct cb_array {
  PyObject_HEAD
  cubridge_array rt; /* owns the memory; orders its uses (runtime.h) */
  void* ptr;         /* the runtime array's data */
  int kind;          /* cubridge_memory: DEVICE, MANAGED or PINNED */
  int dtype;         /* cubridge_dtype */
  int ndim;
  int device;        /* device index (0 on the CPU backend) */
  Py_ssize_t* shape; /* ndim entries, then ndim byte strides */
  Py_ssize_t* strides;
  size_t n;
  size_t nbytes;
} cb_array;

typedef struct cb_arrays {
  PyTypeObject* type;
  PyObject* memory_names[CB_NUM_MEMORY_KINDS]; /* "host", "device", ... */
} cb_arrays;

int cb_array_is(const cb_module* m, PyObject* obj);
/* A new uninitialised Array of `kind` on `device` (-1: the stream's, else the
 * caller's), allocated in order on `stream` (NULL: the default stream). */
cb_array* cb_array_new(cb_module* m, int ndim, const int64_t* shape, int dtype, int kind,
                       int device, cubridge_stream stream);
/* A new Array of `kind` holding a copy of `self` (on the default stream). */
cb_array* cb_array_copy(cb_module* m, cb_array* self, int kind);
/* True when the host may read the Array's memory directly. */
int cb_array_host_accessible(cb_module* m, const cb_array* self);
/* The host waits until it may read (or write) the memory: the GIL is
 * released meanwhile. -1 with an error. */
int cb_array_host_wait(cb_module* m, cb_array* self, int access);
/* 'device' | 'managed' | 'pinned' -> CUBRIDGE_MEMORY_*; -1 with ValueError. */
int cb_parse_memory(const cb_module* m, PyObject* obj);
/* A device argument: None (-1: the current device) or an index >= 0 that the
 * library accepts; -2 with an error. */
int cb_parse_device(cb_module* m, PyObject* obj);
/* The (device_type, device_id) DLPack gives for the Array. */
void cb_array_dldevice(cb_module* m, const cb_array* self, int32_t* type, int32_t* id);

#endif /* CUBRIDGE_CEXT_ARRAY_H_ */
