// Argument checks shared by the ops: each names the argument it refuses.
#ifndef CUBRIDGE_SRC_CHECKS_H_
#define CUBRIDGE_SRC_CHECKS_H_

#include <stddef.h>

#include "cubridge/cubridge.h"

namespace cubridge {

// "fn: argument 'name' is NULL but n = N"
cubridge_status check_not_null(const char* fn, const char* name, const void* p, size_t n);

// Unknown dtype -> UNSUPPORTED_DTYPE naming the argument.
cubridge_status check_dtype(const char* fn, const char* name, int dtype);

// n * size must fit in size_t (and in the address space).
cubridge_status check_length(const char* fn, size_t n, size_t size);

// Ranges [a, a + n*sa) and [b, b + n*sb) may be identical (same start, same
// element size) or disjoint; anything else is INVALID_ARGUMENT.
cubridge_status check_overlap(const char* fn, const char* na, const void* a, size_t sa,
                              const char* nb, const void* b, size_t sb, size_t n);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_CHECKS_H_
