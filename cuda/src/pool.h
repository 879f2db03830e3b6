// The library's caching allocators: device memory from one CUDA memory pool
// per device (stream-ordered: cudaMallocFromPoolAsync / cudaFreeAsync, cached
// up to the pool's release threshold), pinned host memory from a cache of
// cudaMallocHost blocks reused once the stream that freed them got there.
// In front of the device pools, block_cache.h keeps blocks for reuse on the
// stream that freed them.
// Allocations for users are counted per device (cubridge_memory_stats).
#ifndef CUBRIDGE_SRC_POOL_H_
#define CUBRIDGE_SRC_POOL_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cubridge/cubridge.h"
#include "pointers.h"

namespace cubridge {

// Device memory for the library's own use (scratch, staging) on the current
// device, ordered on `stream`; not counted in the user stats. Under memory
// pressure the caches are released to the driver and the allocation retried.
cubridge_status scratch_alloc(const char* fn, size_t bytes, cudaStream_t stream, void** p);
// Frees scratch_alloc memory once `stream` reaches this point.
void scratch_free(void* p, cudaStream_t stream);

// Pinned host memory from the cache (not counted in the device stats).
cubridge_status pinned_alloc(const char* fn, size_t bytes, void** p);
// Back to the cache (p came from pinned_alloc(bytes)); reusable once `stream`
// (of the current device) reaches this point.
cubridge_status pinned_free(const char* fn, void* p, size_t bytes, cudaStream_t stream);

// Frees device memory that came from the pool (its table entry `a`, removed
// already): into the block cache when freed on the stream it was allocated
// on and that stream takes part, else to the pool.
cubridge_status pool_free_block(const char* fn, void* p, const Allocation& a, size_t bytes,
                                cubridge_stream stream);

// Under memory pressure: hands what the caches keep for the current device
// `device` (block cache, staging, its pool's unused memory, after its work)
// and the idle pinned blocks back to the driver.
void release_cached(int device);

// "DEVICE", "MANAGED", "PINNED", "HOST" (as in messages), "unknown" else.
const char* kind_label(int kind);
// INVALID_ARGUMENT naming `fn` unless `kind` can be allocated (DEVICE, MANAGED, PINNED).
cubridge_status check_alloc_kind(const char* fn, int kind);

// cubridge_free / cubridge_free_async: finds where ptr came from (the
// allocation table) and hands it back to that allocator.
cubridge_status free_memory(const char* fn, int kind, void* ptr, cubridge_stream stream);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_POOL_H_
