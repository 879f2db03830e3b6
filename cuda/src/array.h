// The runtime's arrays (cubridge/runtime.h): a block of the library's memory
// and the state of its uses, so that work on it is ordered by events (never a
// device-wide synchronisation) and its memory is reused only after that work.
#ifndef CUBRIDGE_SRC_ARRAY_H_
#define CUBRIDGE_SRC_ARRAY_H_

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include <mutex>

#include "cubridge/runtime.h"

struct cubridge_array_s {
  std::mutex mu;  // guards everything below the constants
  void* ptr;      // from cubridge_malloc_async (or the array cache)
  size_t bytes;
  int kind;
  int device;
  // What the next use must be ordered after (CUDA backend). Streams are kept
  // as CUDA handles with the legacy default stream as cudaStreamLegacy.
  bool pending = false;            // a write may still run ...
  cudaStream_t write = nullptr;    // ... on this stream
  uint64_t writes = 0;             // writes recorded so far (a host wait ends only its own)
  cubridge_event event = nullptr;  // when live: completes after every recorded use
  bool event_live = false;
  cudaStream_t event_on = nullptr;  // where it was last recorded
  bool default_use = false;         // used on the default stream since the event's record ...
  int default_device = -1;          // ... of this device (managed and pinned memory: the
                                    // device current then; -1 none yet)
  bool exported = false;            // handed out: uses the event does not see
  // A stream of this library's used since (its work comes before a free on
  // it, and the event is recorded there only when another stream needs it).
  cudaStream_t lazy = nullptr;
};

namespace cubridge {

// A stream as the runtime orders work on it.
struct On {
  cudaStream_t raw;  // as CUDA takes it
  int device;        // its device; -1: the current one's
  bool ours;         // created by this library: its end is seen (cubridge_stream_destroy)
  bool legacy;       // the legacy default stream (nullptr or cudaStreamLegacy)
};

// The legacy default stream as one key.
inline cudaStream_t stream_key(cudaStream_t raw) { return raw ? raw : cudaStreamLegacy; }

// The device whose default stream work on memory of `kind` on `device` goes
// to: that device for device memory; the current one (-1) for managed and
// pinned memory, which run where the caller is.
inline int home_device(int kind, int device) {
  return kind == CUBRIDGE_MEMORY_DEVICE ? device : -1;
}

// `s` as the runtime sees it; a default stream handle names that stream of
// `home` unless the wrapper names a device.
On on_stream(cubridge_stream s, int home);

// The ordering rules (array.cu), each with a->mu held and on the CUDA backend.
cubridge_status array_acquire(const char* fn, cubridge_array a, const On& s, int access);
// Never fails for the caller: should the record fail, `s` is synchronised.
cubridge_status array_release(const char* fn, cubridge_array a, const On& s, int access);

// Frees the array now (the policy of cubridge_array_destroy, minus holding it
// back during a recording).
void array_free_now(cubridge_array a);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ARRAY_H_
