// A host-side cache of device blocks in front of each device's CUDA pool
// (pool.cu). A cudaMallocFromPoolAsync + cudaFreeAsync pair costs about 1.5 us
// of host time (H200, cubridge_bench); a block freed on a stream and handed out
// again on the same stream costs no CUDA call. Stream order makes that reuse
// safe: the stream's later work runs after every use ordered before the free,
// which is the rule cudaFreeAsync already asks callers to keep.
//
// Only streams whose lifetime the library sees take part: the legacy default
// stream of each device, and streams the library created (their blocks go back
// to the pool before the stream is destroyed). Never while a stream records a
// graph, where a block must belong to the graph's own memory nodes.
#ifndef CUBRIDGE_SRC_BLOCK_CACHE_H_
#define CUBRIDGE_SRC_BLOCK_CACHE_H_

#include <stddef.h>

#include "cubridge/cubridge.h"

namespace cubridge {

// The bytes a pool block for `bytes` is given: rounded up to its size class
// when the cache can hold such a block (so a cached block fits every request
// of its class), else `bytes` as they are.
size_t cache_block_bytes(size_t bytes);

// A cached block for `bytes` on `stream` of `device`; false on a miss.
bool cache_take(int device, cubridge_stream stream, size_t bytes, void** p);

// Keeps `p` (a pool block allocated for `bytes`) for reuse on `stream`; when
// the cache is full, what it held goes back to the pool first. False when it
// cannot be kept (the stream does not take part, the block is too large, no
// host memory): the caller frees it to the pool.
bool cache_put(int device, cubridge_stream stream, size_t bytes, void* p);

// Frees every cached block of `device` to its pool, each on the stream it
// was kept for (under memory pressure, cubridge_empty_cache).
void cache_release_device(int device);

// Frees the cached blocks kept for `stream` (before it is destroyed).
void cache_release_stream(cubridge_stream stream);

// Bytes cached for `device`.
size_t cache_bytes(int device);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_BLOCK_CACHE_H_
