/* Types whose arrays cubridge reads without their Python-level protocols:
 * NumPy's ndarray (always host memory: no __dlpack_device__ question),
 * torch's Tensor (read through its C accessors instead of the
 * __cuda_array_interface__ property, which torch computes in Python on every
 * access) and CuPy's ndarray (its attributes, not the dict that property
 * builds); and how a stream argument's type gives its handle. Recognised by
 * name and attributes at first sight, then by type in a small cache. */
#ifndef CUBRIDGE_CEXT_KNOWN_TYPES_H_
#define CUBRIDGE_CEXT_KNOWN_TYPES_H_

#include "common.h"

/* CB_KNOWN_MASKED: numpy.ma.MaskedArray, refused (its buffer has no mask). */
enum {
  CB_KNOWN_NONE = 0,
  CB_KNOWN_NUMPY = 1,
  CB_KNOWN_TORCH = 2,
  CB_KNOWN_CUPY = 3,
  CB_KNOWN_MASKED = 4
};

/* How a stream argument's type gives its handle, decided from the type's own
 * attributes: the CUDA stream protocol, CuPy's .ptr, torch's .cuda_stream (a C
 * getter, read in preference to torch's __cuda_stream__, which is Python
 * calling it), cubridge.Stream's _handle slot (None once closed), or unknown
 * (the instance is asked each time). */
enum {
  CB_STREAM_BY_INSTANCE = 0,
  CB_STREAM_BY_PROTOCOL = 1,
  CB_STREAM_BY_PTR = 2,
  CB_STREAM_BY_CUDA_STREAM = 3,
  CB_STREAM_BY_SLOT = 4
};

/* Where an instance's __cuda_array_interface__ can be: on its type (a property
 * or class attribute), only in its __dict__ (set per instance), or nowhere.
 * Asking an object for an attribute it lacks costs an AttributeError. */
enum { CB_CAI_NONE = 0, CB_CAI_TYPE = 1, CB_CAI_DICT = 2 };

/* What cubridge learnt about a Python type at first sight. */
typedef struct cb_type_hint {
  PyTypeObject* type; /* owned */
  int known;          /* CB_KNOWN_* */
  int cai;            /* CB_CAI_*: where __cuda_array_interface__ may be found */
  int stream;         /* CB_STREAM_BY_*: how its instances give a stream handle */
} cb_type_hint;
#define CB_TYPE_HINTS 8

typedef struct cb_types {
  cb_type_hint hints[CB_TYPE_HINTS];
  int next;
  /* cubridge.Stream, registered by _graph.py: its instances' handles are read
   * from their slot instead of through a Python-level __cuda_stream__ call
   * (CB_STREAM_BY_SLOT). */
  PyTypeObject* stream_type;
} cb_types;

int cb_types_traverse(cb_module* m, visitproc visit, void* arg);
void cb_types_clear(cb_module* m);

/* What cubridge knows of `type` (cached); never fails (errors mean NONE, and
 * "look on the instance"). */
const cb_type_hint* cb_type_hint_of(cb_module* m, PyTypeObject* type);

/* As cb_type_hint_of, looked at anew: for a type changed since it was first
 * seen (a class given __cuda_array_interface__ later). */
const cb_type_hint* cb_type_hint_renew(cb_module* m, PyTypeObject* type);

#endif /* CUBRIDGE_CEXT_KNOWN_TYPES_H_ */
