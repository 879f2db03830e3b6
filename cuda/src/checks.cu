// Argument checks shared by the ops.
#include <stdint.h>

#include "checks.h"
#include "dtypes.h"
#include "status.h"

namespace cubridge {

cubridge_status check_not_null(const char* fn, const char* name, const void* p, size_t n) {
  if (p == nullptr && n > 0) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL but n = %zu", fn, name,
                n);
  }
  return CUBRIDGE_OK;
}

cubridge_status check_dtype(const char* fn, const char* name, int dtype) {
  if (dtype_known(dtype)) return CUBRIDGE_OK;
  return fail(CUBRIDGE_ERR_UNSUPPORTED_DTYPE, "%s: argument '%s' = %d is not a known dtype", fn,
              name, dtype);
}

cubridge_status check_length(const char* fn, size_t n, size_t size) {
  if (size != 0 && n > (SIZE_MAX / 2) / size) {
    return fail(CUBRIDGE_ERR_INVALID_ARGUMENT, "%s: argument 'n' = %zu is too large", fn, n);
  }
  return CUBRIDGE_OK;
}

cubridge_status check_overlap(const char* fn, const char* na, const void* a, size_t sa,
                              const char* nb, const void* b, size_t sb, size_t n) {
  if (n == 0 || a == nullptr || b == nullptr) return CUBRIDGE_OK;
  uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  uintptr_t a1 = a0 + n * sa, b1 = b0 + n * sb;
  if (a1 <= b0 || b1 <= a0) return CUBRIDGE_OK;  // disjoint
  if (a0 == b0 && sa == sb) return CUBRIDGE_OK;  // exact alias
  return fail(CUBRIDGE_ERR_INVALID_ARGUMENT,
              "%s: arguments '%s' and '%s' partially overlap (only exact aliasing is allowed)", fn,
              na, nb);
}

}  // namespace cubridge
