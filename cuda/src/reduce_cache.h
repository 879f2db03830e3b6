// A pinned result slot and the single-pass reduction's scratch per
// (device, stream). CUB's temporary storage comes from the device's pool.
#ifndef CUBRIDGE_SRC_REDUCE_CACHE_H_
#define CUBRIDGE_SRC_REDUCE_CACHE_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "cubridge/cubridge.h"

namespace cubridge {

// Offset in the pinned result slot of the single-pass kernel's done flag.
constexpr size_t kRedDoneOffset = 32;

struct ReduceScratch {
  std::mutex mu;  // held for a whole reduction (enqueue, sync, read)
  // The (device, stream) the entry serves while `keyed`; changed with both
  // mu and the cache's lock held.
  int device = -1;
  cudaStream_t stream{};
  bool keyed = false;
  // When it last served: past the limit, the entry used longest ago is handed on.
  std::atomic<uint64_t> last_use{0};
  void* result = nullptr;      // pinned, 64 bytes, where the kernel writes: the
                               // value at 0, the done flag at kRedDoneOffset
  void* result_dev = nullptr;  // the same memory as the device sees it
  unsigned seq = 0;            // the last value the done flag was asked to take
  void* blocks = nullptr;      // device, kRedScratchBytes: the single-pass
                               // reduction's counter (0 between calls), partials
};

// The scratch for the current device and `stream`, returned with its mutex
// held in *held; *device receives the current device. Entries are made on
// first use; past kRedScratchKept per device, the one used longest ago (and
// the entries of streams destroyed meanwhile) serve the next new stream, so
// the memory stays bounded however many streams come and go.
cubridge_status reduce_scratch(const char* fn, cudaStream_t stream, ReduceScratch** out,
                               std::unique_lock<std::mutex>* held, int* device);

// Called as one of this library's streams is destroyed: its entry (if any and
// not in use) is kept for the next new stream of its device.
void reduce_scratch_forget(cudaStream_t stream);

// Device bytes of `device`'s entries (cubridge_memory_stats.scratch_bytes).
size_t reduce_scratch_bytes(int device);

// Frees the memory of every entry no reduction holds (cubridge_shutdown);
// they are made again on use.
void reduce_scratch_release();

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_REDUCE_CACHE_H_
