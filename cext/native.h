/*
 * Internal declarations shared by the files of cubridge._native.
 * Limited API (Py_LIMITED_API is set by the build): no CPython internals.
 */
#ifndef CUBRIDGE_CEXT_NATIVE_H_
#define CUBRIDGE_CEXT_NATIVE_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "cubridge/cubridge.h"

#define CB_MAX_NDIM 64
#define CB_NUM_DTYPES 6

/* ---- errors.c --------------------------------------------------------- */

/* Creates the exception classes and adds them to `module`. */
int cb_errors_init(PyObject* module);
/* Raises the exception for `status` with cubridge_last_error(); returns NULL. */
PyObject* cb_raise_status(cubridge_status status);
/* Raises TypeError "<argname> must be <wanted>, got <type of got>"; returns NULL. */
PyObject* cb_type_error(const char* argname, const char* wanted, PyObject* got);

/* ---- dtypes ----------------------------------------------------------- */

/* "float32" ... or NULL; size in bytes or 0 (table in args.c). */
const char* cb_dtype_name(int dtype);
size_t cb_dtype_size(int dtype);
/* Parses a dtype given as an int code or a name ("float32", ...); -1 + error. */
int cb_dtype_from_object(PyObject* obj, const char* argname);
/* The Python scalar (float or int) at host memory `p` holding `dtype`. */
PyObject* cb_scalar_to_python(int dtype, const void* p);

/* ---- streams (args.c) ------------------------------------------------- */

/* Stream argument: None, an int cudaStream_t, an object with __cuda_stream__,
 * .ptr or .cuda_stream. Sets *handle (0 for the default stream). */
int cb_stream_handle(PyObject* obj, uintptr_t* handle);
/* A cubridge_stream wrapping `handle` (NULL for 0); release it after use. */
int cb_stream_from_handle(uintptr_t handle, cubridge_stream* stream);
void cb_stream_release(cubridge_stream stream);
/* Blocks until the work queued on the foreign stream `handle` is done. */
int cb_sync_handle(uintptr_t handle);

/* ---- array arguments (args.c) ----------------------------------------- */

/* Where an argument's memory lives, as far as its exporter told us. */
enum { CB_HOME_HOST = 0, CB_HOME_DEVICE = 1, CB_HOME_MANAGED = 2, CB_HOME_PINNED = 3 };

typedef struct {
  const char* name; /* argument name used in error messages */
  void* ptr;
  int dtype;
  int ndim;
  int64_t shape[CB_MAX_NDIM];
  size_t n;        /* number of elements */
  int readonly;    /* exporter says read-only */
  int home;        /* CB_HOME_* */
  int device;      /* CUDA device id, -1 for host */
  PyObject* array; /* owned: a cubridge.Array, when the argument is one */
  Py_buffer view;
  int has_view;
  void* dl; /* imported DLManagedTensor(Versioned), deleted on release */
  int dl_versioned;
  PyObject* keep; /* owned: other object kept alive during the call */
} cb_arg;

/* Imports `obj` as a C-contiguous array argument. `writable` demands write
 * access (for out=). `stream` is the op's stream handle, given to __dlpack__
 * producers and used to order __cuda_array_interface__ streams. */
int cb_arg_get(PyObject* obj, const char* name, int writable, uintptr_t stream, cb_arg* arg);
void cb_arg_release(cb_arg* arg);
/* Checks two arguments have equal dtype (TypeError) and shape (ValueError). */
int cb_arg_same_dtype(const cb_arg* a, const cb_arg* b);
int cb_arg_same_shape(const cb_arg* a, const cb_arg* b);
/* Raises ValueError if the byte ranges of a and b overlap without being equal. */
int cb_arg_check_overlap(const cb_arg* a, const cb_arg* b);
/* Waits for pending cubridge work on an Array argument from another stream. */
int cb_arg_order(cb_arg* arg, uintptr_t stream);
/* Marks an Array argument as written on `stream`. */
void cb_arg_written(cb_arg* arg, uintptr_t stream);

/* ---- results (args.c) ------------------------------------------------- */

/* A new result array like `proto` (its home decides: host -> numpy.ndarray,
 * device/managed -> cubridge.Array), with the given shape and dtype. */
PyObject* cb_new_result(const cb_arg* proto, int ndim, const int64_t* shape, int dtype);

/* ---- cubridge.Array (array.c) ----------------------------------------- */

typedef struct {
  PyObject_HEAD void* ptr;
  int kind;  /* cubridge_memory: DEVICE, MANAGED or PINNED */
  int dtype; /* cubridge_dtype */
  int ndim;
  int device;        /* CUDA device id (0 on the CPU backend) */
  Py_ssize_t* shape; /* ndim entries, then ndim byte strides */
  Py_ssize_t* strides;
  size_t n;
  size_t nbytes;
  int pending;              /* cubridge work may still be writing it ... */
  uintptr_t pending_stream; /* ... on this stream (0: default) */
} cb_array;

extern PyTypeObject* cb_array_type;
int cb_array_init_type(PyObject* module);
int cb_is_array(PyObject* obj);
/* A new uninitialised Array of `kind`; shape has `ndim` entries. */
cb_array* cb_array_new(int ndim, const int64_t* shape, int dtype, int kind);
/* 'device' | 'managed' | 'pinned' -> CUBRIDGE_MEMORY_*; -1 with ValueError. */
int cb_parse_memory(PyObject* obj);
/* True when the host may read the Array's memory directly. */
int cb_array_host_accessible(const cb_array* self);
/* A new Array of `kind` holding a copy of `self` (copy=True exports). */
cb_array* cb_array_copy(cb_array* self, int kind);
/* Waits for pending work on the Array unless it was queued on `stream`. */
int cb_array_settle(cb_array* self, int for_host, uintptr_t stream);

/* DLPack/CAI stream number of a handle: our default stream (0) is legacy (1). */
static inline uintptr_t cb_norm_stream(uintptr_t h) { return h == 0 ? 1 : h; }

/* ---- DLPack (dlpack.c) ------------------------------------------------ */

/* Imports obj.__dlpack__ into `arg` (consumer side). */
int cb_dlpack_import(PyObject* obj, int writable, uintptr_t stream, cb_arg* arg);
/* Calls the deleter of an imported DLManagedTensor(Versioned). */
void cb_dlpack_release(void* dl, int versioned);
/* cubridge.Array.__dlpack__ / __dlpack_device__ (producer side). */
PyObject* cb_dlpack_export(cb_array* self, PyObject* args, PyObject* kwds);
PyObject* cb_dlpack_device(cb_array* self, PyObject* unused);
/* The (device_type, device_id) DLPack gives for an Array. */
void cb_array_dldevice(const cb_array* self, int32_t* type, int32_t* id);

/* ---- library state (module.c) ----------------------------------------- */

/* The backend in use (CUBRIDGE_BACKEND_*), -1 with an exception set. */
int cb_backend(void);

/* ---- ops (ops.c) ------------------------------------------------------ */

extern PyMethodDef cb_op_methods[];

#endif /* CUBRIDGE_CEXT_NATIVE_H_ */
