/*
 * The DLPack 1.0 data structures, written from the public specification
 * (https://dmlc.github.io/dlpack/latest/). Only what cubridge's extension uses:
 * devices, data types, tensors, and the legacy and versioned managed tensors.
 * Field order and widths follow the spec exactly: these structs cross library
 * boundaries through PyCapsules named "dltensor" and "dltensor_versioned".
 */
#ifndef CUBRIDGE_CEXT_DLPACK_H_
#define CUBRIDGE_CEXT_DLPACK_H_

#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

/* Set in DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Device types used by cubridge (the spec lists more). */
enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3, /* pinned host memory */
  kDLCUDAManaged = 13
};

typedef struct {
  int32_t device_type; /* an enum in the spec; 32 bits on every supported ABI */
  int32_t device_id;
} DLDevice;

enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides; /* in elements; NULL means compact row-major */
  uint64_t byte_offset;
} DLTensor;

/* Legacy (pre-1.0) managed tensor: capsule name "dltensor". */
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* Versioned managed tensor: capsule name "dltensor_versioned". */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* DLPack 1.2's C exchange table: a capsule named "dlpack_exchange_api" in the
 * type attribute __dlpack_c_exchange_api__. Only the entries cubridge calls are
 * typed; the others keep their places as opaque function pointers. */
typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader* prev_api;
} DLPackExchangeAPIHeader;

/* Fills `out` (not owned: valid while the object lives, no synchronisation);
 * 0, or -1 with a Python exception set. */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void* py_object, DLTensor* out);

/* The producer's current stream for a device (what its own kernels run on):
 * the consumer orders itself after it, since the fill above does not. 0, or -1
 * with a Python exception set. */
typedef int (*DLPackCurrentWorkStream)(int32_t device_type, int32_t device_id,
                                       void** out_current_stream);

typedef struct {
  DLPackExchangeAPIHeader header;
  void (*managed_tensor_allocator)(void);
  void (*managed_tensor_from_py_object_no_sync)(void);
  void (*managed_tensor_to_py_object_no_sync)(void);
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
  DLPackCurrentWorkStream current_work_stream;                      /* may be NULL */
} DLPackExchangeAPI;

#define CB_DL_EXCHANGE_API "dlpack_exchange_api"

/* Capsule names: unused, and renamed by the consumer once it owns the tensor. */
#define CB_DL_VERSIONED "dltensor_versioned"
#define CB_DL_LEGACY "dltensor"
#define CB_DL_USED_VERSIONED "used_dltensor_versioned"
#define CB_DL_USED_LEGACY "used_dltensor"

/* Calls the deleter of a DLManagedTensor(Versioned), if it has one. */
static inline void cb_dl_delete(void* dl, int versioned) {
  if (versioned) {
    DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)dl;
    if (m->deleter) m->deleter(m);
  } else {
    DLManagedTensor* m = (DLManagedTensor*)dl;
    if (m->deleter) m->deleter(m);
  }
}

#endif /* CUBRIDGE_CEXT_DLPACK_H_ */
