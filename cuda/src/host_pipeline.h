// Pinned staging buffers and streams for the pipelined host path:
// host arrays are copied in chunks through pinned memory on kSlots streams so
// that the host copies, PCIe transfers and kernels of different chunks overlap.
#ifndef CUBRIDGE_SRC_HOST_PIPELINE_H_
#define CUBRIDGE_SRC_HOST_PIPELINE_H_

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "cubridge/cubridge.h"
#include "tuning.h"

namespace cubridge {

struct StagingSlot {
  cudaStream_t stream;
  cudaEvent_t done;
  void* host[kSlotBuffers];  // pinned
  void* dev[kSlotBuffers];   // device
};

struct StagingSet {
  int device;
  bool in_use;
  bool cached;  // in the list acquire_staging reuses from
  StagingSlot slot[kSlots];
};

// A free staging set for the current device, created on first use and kept
// for later calls (one per concurrent caller). Give it back with release,
// with the device it was acquired on current.
cubridge_status acquire_staging(const char* fn, StagingSet** set);
void release_staging(StagingSet* set);
// Gives the buffers of `device`'s idle sets back to the pools (the pinned
// cache, the device pool). Runs with `device` current.
void trim_staging(int device);
// Device bytes of `device`'s staging sets, in use or not.
size_t staging_bytes(int device);

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_HOST_PIPELINE_H_
