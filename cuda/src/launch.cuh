// Kernel launches. Every launch of the library goes through launch(): the one
// place that writes <<< >>>, and the one place that knows that mode=none
// compiles kernels as plain C++ but never launches them.
#ifndef CUBRIDGE_SRC_LAUNCH_CUH_
#define CUBRIDGE_SRC_LAUNCH_CUH_

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>

#include "backend.h"
#include "devices.h"
#include "tuning.h"

namespace cubridge {

// Enqueues kernel<<<grid, block, 0, stream>>>(args...); returns the launch
// error (cleared). Without CUDA (mode=none): cudaErrorNoDevice.
template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), size_t grid, int block, cudaStream_t stream,
                   Args... args) {
#if defined(CUBRIDGE_NO_CUDA)
  (void)kernel, (void)grid, (void)block, (void)stream;
  ((void)args, ...);
  return cudaErrorNoDevice;
#else
  // clang-format splits >>> into > > > here, which nvcc refuses:
  // clang-format off
  kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(static_cast<Params>(args)...);
  // clang-format on
  return cudaGetLastError();
#endif
}

// Blocks of `kernel` (kThreads each) that fit on one SM of the current device.
template <class Kernel>
int resident_blocks(Kernel kernel) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0) != cudaSuccess ||
      blocks <= 0) {
    (void)cudaGetLastError();
    blocks = 4;
  }
  return blocks;
}

// resident_blocks(kKernel) on `device`, asked once per kernel and device
// (devices of one host may differ).
template <auto kKernel>
int resident_blocks_on(int device) {
  static std::atomic<int> resident[kMaxDevices];
  const int slot = device >= 0 && device < kMaxDevices ? device : 0;
  int blocks = resident[slot].load(std::memory_order_relaxed);
  if (blocks <= 0) {
    blocks = resident_blocks(kKernel);
    resident[slot].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

// Enough blocks for `work_items` threads, at most one full wave of resident
// blocks: every block then loops over an equal share (grid-stride), so no
// partial last wave idles SMs at the end.
inline size_t grid_for(size_t work_items, int device, int blocks_per_sm) {
  size_t blocks = (work_items + kThreads - 1) / kThreads;
  size_t cap = static_cast<size_t>(sm_count(device)) * static_cast<size_t>(blocks_per_sm);
  return std::max<size_t>(1, std::min(blocks, cap));
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_LAUNCH_CUH_
