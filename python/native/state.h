/*
 * The module state of cubridge._native (multi-phase init, PEP 489): the Array
 * type, the exception classes, the tables read from the C ABI at init, interned
 * names. Every function that needs one of them takes the state.
 */
#ifndef CUBRIDGE_CEXT_STATE_H_
#define CUBRIDGE_CEXT_STATE_H_

#include "common.h"
#include "dlpack.h"
#include "keywords.h"

/* One dtype of the C ABI, as the Python protocols spell it. Everything here is
 * derived at init from cubridge_dtype_name / cubridge_dtype_size. */
typedef struct cb_dtype_info {
  const char* name;   /* "float32", ... */
  size_t size;        /* bytes */
  PyObject* name_obj; /* the name as an interned str */
  uint8_t dl_code;    /* DLPack type code (kDLFloat, ...); CB_DL_NONE if none */
  char typestr[8];    /* array-interface typestr ("<f4"); "" if it has none */
  char format[2];     /* buffer-protocol format ("f"); "" if it has none */
} cb_dtype_info;
#define CB_DL_NONE 255

/* What cubridge learnt about a Python type at first sight (known_types.c). */
typedef struct cb_type_hint {
  PyTypeObject* type; /* owned */
  int known;          /* CB_KNOWN_* */
  int cai;            /* CB_CAI_*: where __cuda_array_interface__ may be found */
  int stream;         /* CB_STREAM_BY_*: how its instances give a stream handle */
} cb_type_hint;
#define CB_TYPE_HINTS 8
#define CB_TORCH_NAMES 10
#define CB_CUPY_DTYPES 8

/* NumPy's PyArray_NewFromDescr (numpy_new.c). */
typedef PyObject* (*cb_npy_new_from_descr)(PyTypeObject* type, PyObject* descr, int nd,
                                           const Py_ssize_t* dims, const Py_ssize_t* strides,
                                           void* data, int flags, PyObject* obj);

/* A device block parked behind the event of its last uses (parked.h). */
typedef struct cb_parked {
  void* ptr;
  size_t nbytes;
  int device;
  cubridge_event event; /* owned */
} cb_parked;
#define CB_PARKED_MAX 8

typedef struct cb_state {
  PyTypeObject* array_type;
  PyObject* error_base;                        /* cubridge.Error */
  PyObject* errors[CB_MAX_STATUSES];           /* class of each status (NULL for OK) */
  int status_count;                            /* cubridge_status_count() */
  int dtype_count;                             /* cubridge_dtype_count() */
  cb_dtype_info dtypes[CB_MAX_DTYPES];         /* indexed by cubridge_dtype */
  PyObject* memory_names[CB_NUM_MEMORY_KINDS]; /* "host", "device", ... */
  int backend;                                 /* CUBRIDGE_BACKEND_*, -1 until asked (backend.c) */
  int device_count;                            /* asked with the backend; 0 until then */
  /* NumPy, at the first result made (numpy_new.c) */
  PyObject* numpy_empty;                      /* numpy.empty */
  PyTypeObject* numpy_ndarray;                /* numpy.ndarray */
  PyObject* numpy_dtypes[CB_MAX_DTYPES];      /* numpy.dtype of each */
  int numpy_new;                              /* 1 C API, -1 numpy.empty, 0 not decided */
  cb_npy_new_from_descr numpy_new_from_descr; /* when numpy_new is 1 */
  /* interned names */
  PyObject* s_dlpack;
  PyObject* s_dlpack_device;
  PyObject* s_cai;
  PyObject* s_shape;
  PyObject* s_typestr;
  PyObject* s_data;
  PyObject* s_strides;
  PyObject* s_mask;
  PyObject* s_stream;
  PyObject* s_max_version;
  PyObject* s_handle;              /* "_handle", a cubridge.Stream's slot */
  PyObject* s_cuda_stream_proto;   /* "__cuda_stream__" */
  PyObject* s_ptr;                 /* "ptr" (CuPy's streams) */
  PyObject* s_cuda_stream;         /* "cuda_stream" (torch's streams) */
  PyObject* s_device_id;           /* "device_id" (CuPy's memory pointers) */
  PyObject* s_dtype;               /* "dtype" */
  PyObject* s_str;                 /* "str" (numpy.dtype's typestr) */
  PyObject* max_version;           /* (1, 0) */
  PyObject* keywords[CB_KW_COUNT]; /* the ops' parameter names (signature.h) */
  cb_type_hint hints[CB_TYPE_HINTS];
  int next_hint;
  /* torch, from the first torch.Tensor seen on (torch_import.c) */
  int numpy_fields; /* numpy_import.c: 1 read ndarray fields, -1 do not, 0 not decided */
  int torch_ready;  /* 1: the objects below are set */
  PyObject* torch_dtypes[CB_MAX_DTYPES]; /* torch.float32, ... in ABI order; NULL: none */
  PyObject* torch_strided;               /* torch.strided */
  PyObject* torch_names[CB_TORCH_NAMES]; /* interned attribute names */
  /* torch.Tensor and its DLPack C exchange entry (torch >= 2.10), which fills a
   * DLTensor for exact torch.Tensor instances; NULL: the attributes are read. */
  PyObject* torch_tensor;
  DLPackDLTensorFromPyObjectNoSync torch_dl_fill;
  /* torch's current stream of a device: the exchange table's entry, else
   * torch.cuda.current_stream (a function, NULL until a CUDA tensor needs it). */
  DLPackCurrentWorkStream torch_work_stream;
  PyObject* torch_current_stream;
  /* CuPy, from the first cupy.ndarray seen on (cupy_import.c) */
  int cupy_ready;                            /* 1: the objects below are set; -1: CuPy lacks them */
  int cupy_read;                             /* 1: the last array was read by attributes; -1: not */
  PyObject* cupy_current_stream;             /* cupy.cuda.get_current_stream */
  uintptr_t cupy_default_stream;             /* what CuPy's interface names for Stream.null */
  PyObject* cupy_dtype_seen[CB_CUPY_DTYPES]; /* numpy.dtype objects met, owned ... */
  int cupy_dtype_code[CB_CUPY_DTYPES];       /* ... and their cubridge dtypes */
  int cupy_dtype_next;
  cubridge_event order_event; /* stream.c: producer -> consumer handshakes */
  /* cubridge.Stream, registered by _graph.py: its instances' handles are read
   * from their slot instead of through a Python-level __cuda_stream__ call
   * (known_types.c, CB_STREAM_BY_SLOT). */
  PyTypeObject* stream_type;
  /* graph.c: while a cubridge.Stream records, the objects its ops used (a
   * list, kept alive by the Graph) and the stream's handle; NULL otherwise. */
  PyObject* recording;
  uintptr_t recording_stream;
  /* array.c: Arrays' memory freed while a cubridge.Stream records, freed when
   * the recording ends (copies of the Arrays' fields). */
  struct cb_array** deferred;
  int deferred_count, deferred_cap;
  cb_parked parked[CB_PARKED_MAX]; /* parked.c, oldest first */
  int parked_count;
} cb_state;

static inline cb_state* cb_state_of_module(PyObject* module) {
  return (cb_state*)PyModule_GetState(module);
}

/* The state of the module that defined `type` (the Array type's methods). */
cb_state* cb_state_of_type(PyTypeObject* type);

/* Fills the tables and names; -1 with an exception (ImportError when the C
 * library's tables do not fit). */
int cb_state_init(cb_state* st);
int cb_state_traverse(cb_state* st, visitproc visit, void* arg);
void cb_state_clear(cb_state* st);

/* The dtype of `dtype` or NULL when it is not one. */
static inline const cb_dtype_info* cb_dtype(const cb_state* st, int dtype) {
  return dtype >= 0 && dtype < st->dtype_count ? &st->dtypes[dtype] : NULL;
}

#endif /* CUBRIDGE_CEXT_STATE_H_ */
