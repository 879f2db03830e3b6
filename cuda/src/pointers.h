// Where memory lives: one pointer's kind and device, from the library's table
// of its own allocations or from the CUDA runtime.
#ifndef CUBRIDGE_SRC_POINTERS_H_
#define CUBRIDGE_SRC_POINTERS_H_

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "cubridge/cubridge.h"

namespace cubridge {

enum class Loc { kPageable, kPinned, kDevice, kManaged };

struct PtrInfo {
  Loc loc;
  int device;  // -1 for host memory
};

// Where p lives (CUDA backend only): from the table of cubridge_malloc's
// allocations when p lies in one, else one cudaPointerGetAttributes.
cubridge_status query_pointer(const char* fn, const char* arg, const void* p, PtrInfo* info);

// Which allocator a table entry came from.
enum class Origin : uint8_t {
  kMalloc,  // cubridge_malloc (cudaMalloc, cudaMallocManaged, cudaMallocHost)
  kPool,    // cubridge_malloc_async DEVICE: the device's memory pool
  kPinned,  // cubridge_malloc_async PINNED: the pinned-host cache
  kHost     // CPU backend: aligned_alloc
};

struct Allocation {
  uintptr_t end;
  PtrInfo info;
  Origin origin;
  // kPool: allocated on a stream of the block cache (block_cache.h), which
  // takes the block back when it is freed on that same stream.
  bool cacheable = false;
  cudaStream_t cache_stream = nullptr;
};

// The table of live allocations of the library: cudaPointerGetAttributes
// costs about as much as a kernel launch, and every op asks for each pointer.
// remember_allocation returns false when the table could not grow.
bool remember_allocation(const void* p, size_t bytes, PtrInfo info, Origin origin,
                         bool cacheable = false, cudaStream_t cache_stream = nullptr);
// Removes the entry starting exactly at p; false if there is none.
bool forget_allocation(const void* p, Allocation* out = nullptr);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_POINTERS_H_
