// The one table of element types. Every dispatch in the library is generated
// from CUBRIDGE_DTYPES; adding a dtype means adding one line here (and the enum
// value in cubridge.h).
#ifndef CUBRIDGE_SRC_DTYPES_H_
#define CUBRIDGE_SRC_DTYPES_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stddef.h>
#include <stdint.h>

#include "cubridge/cubridge.h"

// X(ENUM, c_type, "name", is_float)
#define CUBRIDGE_DTYPES(X)                     \
  X(CUBRIDGE_FLOAT32, float, "float32", true)  \
  X(CUBRIDGE_FLOAT64, double, "float64", true) \
  X(CUBRIDGE_INT32, int32_t, "int32", false)   \
  X(CUBRIDGE_INT64, int64_t, "int64", false)   \
  X(CUBRIDGE_FLOAT16, __half, "float16", true) \
  X(CUBRIDGE_BFLOAT16, __nv_bfloat16, "bfloat16", true)

namespace cubridge {

template <class T>
struct Tag {
  using type = T;
};

// One row of the table.
struct DtypeFacts {
  const char* name;
  size_t size;
  bool is_float;
};

// The row of `dtype`, or nullptr for a dtype not in the table.
inline const DtypeFacts* dtype_facts(int dtype) {
  switch (dtype) {
#define CUBRIDGE_X(E, T, NAME, FLT)                          \
  case E: {                                                  \
    static constexpr DtypeFacts facts{NAME, sizeof(T), FLT}; \
    return &facts;                                           \
  }
    CUBRIDGE_DTYPES(CUBRIDGE_X)
#undef CUBRIDGE_X
    default:
      return nullptr;
  }
}

inline bool dtype_known(int dtype) { return dtype_facts(dtype) != nullptr; }

inline const char* dtype_name(int dtype) {
  const DtypeFacts* f = dtype_facts(dtype);
  return f ? f->name : nullptr;
}

inline size_t dtype_size(int dtype) {
  const DtypeFacts* f = dtype_facts(dtype);
  return f ? f->size : 0;
}

inline bool dtype_is_float(int dtype) {
  const DtypeFacts* f = dtype_facts(dtype);
  return f && f->is_float;
}

// Calls f(Tag<T>{}) for the C type of `dtype`; returns `unknown` for a dtype
// not in the table. f must return cubridge_status.
template <class F>
cubridge_status dispatch(int dtype, cubridge_status unknown, F&& f) {
  switch (dtype) {
#define CUBRIDGE_X(E, T, NAME, FLT) \
  case E:                           \
    return f(Tag<T>{});
    CUBRIDGE_DTYPES(CUBRIDGE_X)
#undef CUBRIDGE_X
    default:
      return unknown;
  }
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_DTYPES_H_
