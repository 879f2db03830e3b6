// A host-side cache of device blocks in front of each device's CUDA pool
// (pool.cu). A cudaMallocFromPoolAsync + cudaFreeAsync pair costs about 1.5 us
// of host time (H200, cubridge_bench); a block freed on a stream and handed out
// again on the same stream costs no CUDA call. Stream order makes that reuse
// safe: the stream's later work runs after every use ordered before the free,
// which is the rule cudaFreeAsync already asks callers to keep.
//
// A block is kept only when it is freed on the stream it was allocated on, so
// the cache never holds more of a stream's blocks than that stream had in use
// at once (blocks allocated on one stream and freed on another go back to the
// pool), and a miss gives the stream's cached blocks back to the pool before
// the pool serves it: sizes that are not asked for again do not pile up.
//
// Only streams whose lifetime the library sees take part: the legacy default
// stream of each device, and streams the library created, also through a
// wrapper of their handle (their blocks go back to the pool before the stream
// is destroyed). Never while a stream records a
// graph, where a block must belong to the graph's own memory nodes.
#ifndef CUBRIDGE_SRC_BLOCK_CACHE_H_
#define CUBRIDGE_SRC_BLOCK_CACHE_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cubridge/cubridge.h"

namespace cubridge {

// The bytes a pool block for `bytes` is given: rounded up to its size class
// when the cache can hold such a block (so a cached block fits every request
// of its class), else `bytes` as they are.
size_t cache_block_bytes(size_t bytes);

// Whether blocks of `bytes` allocated or freed on `stream` take part, and the
// stream they are kept for (*key: the legacy default stream is nullptr). True
// only for a stream that does not record a graph.
bool cache_stream(cubridge_stream stream, size_t bytes, cudaStream_t* key);

// A cached block for `bytes` kept for stream `key` of `device`; false on a miss.
bool cache_take(int device, cudaStream_t key, size_t bytes, void** p);

// Keeps `p` (a pool block allocated on `key` for `bytes`, freed on `key`) for
// reuse there; when the cache is full, what it held goes back to the pool
// first. False when no host memory is left to keep it: the caller frees it.
bool cache_put(int device, cudaStream_t key, size_t bytes, void* p);

// Frees every cached block of `device` to its pool, each on the stream it
// was kept for (under memory pressure, cubridge_empty_cache).
void cache_release_device(int device);

// Frees the cached blocks of `device` kept for stream `key` to the pool, on
// that stream (where the pool can hand them to the stream's next allocation).
void cache_release(int device, cudaStream_t key);

// Frees the cached blocks kept for `stream` (before it is destroyed).
void cache_release_stream(cubridge_stream stream);

// Bytes of the blocks cached for `device` (size classes, as the pool gave them).
size_t cache_bytes(int device);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_BLOCK_CACHE_H_
