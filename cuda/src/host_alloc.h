// Host memory of the CPU backend's allocations (cubridge_malloc and
// cubridge_malloc_async): kAlign-aligned blocks with a header in front that
// records their size, so a free needs no table lookup, and a size-class cache
// so that a loop making results of one size calls no malloc. Small results are
// what NumPy users compare against: a malloc/free pair plus the allocation
// table cost as much as adding 1000 floats.
#ifndef CUBRIDGE_SRC_HOST_ALLOC_H_
#define CUBRIDGE_SRC_HOST_ALLOC_H_

#include <stddef.h>

#include "cubridge/cubridge.h"

namespace cubridge {

// A block of at least `bytes` (> 0); `counted` blocks are the users' results,
// counted in cubridge_memory_stats by the caller.
cubridge_status host_alloc(const char* fn, size_t bytes, bool counted, void** p);
// Frees a host_alloc block. INVALID_ARGUMENT (nothing freed) when p does not
// carry the block header; *bytes and *counted say what was freed.
cubridge_status host_free(const char* fn, void* p, size_t* bytes, bool* counted);
// Releases every cached block to the C library.
void host_trim();
// Bytes of cached blocks.
size_t host_cached();

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_HOST_ALLOC_H_
