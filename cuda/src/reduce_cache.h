// A pinned result slot and the single-pass reduction's scratch per
// (device, stream). CUB's temporary storage comes from the device's pool.
#ifndef CUBRIDGE_SRC_REDUCE_CACHE_H_
#define CUBRIDGE_SRC_REDUCE_CACHE_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include <mutex>

#include "cubridge/cubridge.h"

namespace cubridge {

// Offset in the pinned result slot of the single-pass kernel's done flag.
constexpr size_t kRedDoneOffset = 32;

struct ReduceScratch {
  std::mutex mu;               // held for a whole reduction (enqueue, sync, read)
  void* result = nullptr;      // pinned, 64 bytes, where the kernel writes: the
                               // value at 0, the done flag at kRedDoneOffset
  void* result_dev = nullptr;  // the same memory as the device sees it
  unsigned seq = 0;            // the last value the done flag was asked to take
  void* blocks = nullptr;      // device, kRedScratchBytes: the single-pass
                               // reduction's counter (0 between calls), partials
};

// The scratch for the current device and `stream` (created on first use,
// kept for the life of the process). *device receives the current device.
cubridge_status reduce_scratch(const char* fn, cudaStream_t stream, ReduceScratch** out,
                               int* device);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_REDUCE_CACHE_H_
