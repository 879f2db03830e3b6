// The one check of a view, whatever protocol filled it (runtime.h).
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "dtypes.h"
#include "pointers.h"
#include "status.h"
#include "view.h"

namespace cubridge {
namespace {

// "float32, float64, ... and bfloat16" into buf.
const char* dtype_list(char* buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  const int count = cubridge_dtype_count();
  for (int i = 0; i < count && used < len; ++i) {
    const char* sep = i == 0 ? "" : i + 1 == count ? " and " : ", ";
    int w = snprintf(buf + used, len - used, "%s%s", sep, dtype_name(i));
    if (w < 0) break;
    used += static_cast<size_t>(w);
  }
  return buf;
}

cubridge_status check_strides(const cubridge_view* v) {
  if (v->strides == nullptr || v->n == 0) return CUBRIDGE_OK;
  int64_t expected = 1;
  for (int i = v->ndim - 1; i >= 0; --i) {
    const int64_t stride = v->strides[i];
    if (v->shape[i] != 1 && stride != expected) {
      if (stride == CUBRIDGE_STRIDE_NOT_WHOLE) {
        return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                    "%s must be C-contiguous (its stride in dimension %d is not a multiple of the "
                    "item size); pass a contiguous copy",
                    v->name, i);
      }
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s must be C-contiguous (its stride %lld elements in dimension %d should be "
                  "%lld); pass a contiguous copy",
                  v->name, static_cast<long long>(stride), i, static_cast<long long>(expected));
    }
    expected *= v->shape[i];
  }
  return CUBRIDGE_OK;
}

// Where the data lives: what CUDA says when the producer did not, and the
// CPU backend's refusal of CUDA memory (its threads must not dereference it).
cubridge_status check_memory(cubridge_view* v) {
  if (on_cpu()) {
    if (v->array == nullptr && v->memory == CUBRIDGE_MEMORY_DEVICE) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s is CUDA device memory (%s), which the CPU backend cannot use", v->name,
                  v->source ? v->source : "its producer says so");
    }
    return CUBRIDGE_OK;
  }
  if ((v->flags & CUBRIDGE_VIEW_ASK_MEMORY) == 0 || v->data == nullptr) return CUBRIDGE_OK;
  PtrInfo info;
  if (query_pointer("cubridge_view_check", v->name, v->data, &info) != CUBRIDGE_OK) {
    clear_error();  // the producer's word stands; the op looks again
    return CUBRIDGE_OK;
  }
  switch (info.loc) {
    case Loc::kPageable:
      v->memory = CUBRIDGE_MEMORY_HOST;
      break;
    case Loc::kPinned:
      v->memory = CUBRIDGE_MEMORY_PINNED;
      break;
    case Loc::kDevice:
      v->memory = CUBRIDGE_MEMORY_DEVICE;
      break;
    case Loc::kManaged:
      v->memory = CUBRIDGE_MEMORY_MANAGED;
      break;
  }
  v->device = info.device;
  return CUBRIDGE_OK;
}

}  // namespace

cubridge_status check_view(cubridge_view* v, int access) {
  if (v == nullptr || v->struct_size < sizeof(cubridge_view)) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                "cubridge_view_check: argument 'view' is NULL or its struct_size is not "
                "sizeof(cubridge_view) = %zu",
                sizeof(cubridge_view));
  }
  if (v->name == nullptr) v->name = "an argument";
  if (v->ndim < 0 || v->ndim > CUBRIDGE_MAX_NDIM) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s has %d dimensions; cubridge supports at most %d",
                v->name, v->ndim, CUBRIDGE_MAX_NDIM);
  }
  if (v->ndim > 0 && v->shape == nullptr) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s has %d dimensions but no shape", v->name,
                v->ndim);
  }
  const DtypeFacts* d = dtype_facts(v->dtype);
  // Overflow is checked against the real item size, or 1 before the dtype
  // check (whose error comes after the shape's).
  const size_t itemsize = d ? d->size : 1;
  size_t n = 1, bytes = 0;
  bool overflow = false, empty = false;
  for (int i = 0; i < v->ndim; ++i) {
    const int64_t dim = v->shape[i];
    if (dim < 0) {
      return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
                  "%s has a negative dimension (%lld in dimension %d)", v->name,
                  static_cast<long long>(dim), i);
    }
    if (dim == 0) empty = true;
    overflow |= __builtin_mul_overflow(n, static_cast<size_t>(dim), &n);
  }
  overflow |= __builtin_mul_overflow(n, itemsize, &bytes) || bytes > SIZE_MAX / 2;
  if (overflow && !empty) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s is too large: its element count overflows",
                v->name);
  }
  if (d == nullptr) {
    char list[128];
    return fail(CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "%s has unsupported dtype %s; cubridge supports %s",
                v->name, v->dtype_desc && v->dtype_desc[0] ? v->dtype_desc : "(unknown)",
                dtype_list(list, sizeof list));
  }
  v->n = empty ? 0 : n;
  v->nbytes = v->n * d->size;
  CUBRIDGE_TRY(check_strides(v));
  if (access == CUBRIDGE_ACCESS_WRITE && (v->flags & CUBRIDGE_VIEW_READONLY) != 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s is read-only; pass a writable array", v->name);
  }
  return check_memory(v);
}

}  // namespace cubridge

extern "C" {

CUBRIDGE_API cubridge_status cubridge_view_check(cubridge_view* view, int access) {
  cubridge::clear_error();
  return cubridge::check_view(view, access);
}

}  // extern "C"
