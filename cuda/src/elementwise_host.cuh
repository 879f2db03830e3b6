// The pipelined host path of the elementwise ops (host arrays on the GPU
// backend): chunks copied through pinned staging on kSlots streams, so that
// host copies, PCIe transfers and kernels of different chunks overlap.
#ifndef CUBRIDGE_SRC_ELEMENTWISE_HOST_CUH_
#define CUBRIDGE_SRC_ELEMENTWISE_HOST_CUH_

#include <cuda_runtime.h>

#include <algorithm>

#include "cpu_pool.h"
#include "elementwise_gpu.cuh"
#include "host_pipeline.h"
#include "ops.cuh"
#include "prefault.h"
#include "status.h"
#include "tuning.h"

namespace cubridge {

template <class Op, class TO, class TA, class TB>
cubridge_status run_host_pipeline(const char* fn, Op op, TO* out, const TA* a, const TB* b,
                                  size_t n) {
  StagingSet* set = nullptr;
  CUBRIDGE_TRY(acquire_staging(fn, &set));
  const size_t chunk = kChunkBytes / widest<TO, TA, TB>();
  // A new result's pages are faulted in beside the transfers, not by the
  // copies out of staging (joined when this function returns).
  Prefaulter prefault(out, n * sizeof(TO), chunk * sizeof(TO));
  size_t pend_begin[kSlots] = {0}, pend_count[kSlots] = {0};
  cudaError_t err = cudaSuccess;
  const char* what = "";

  // Waits for slot s and copies its result out.
  auto finish = [&](int s) -> cudaError_t {
    if (pend_count[s] == 0) return cudaSuccess;
    cudaError_t e = cudaEventSynchronize(set->slot[s].done);
    if (e != cudaSuccess) return e;
    parallel_memcpy(out + pend_begin[s], set->slot[s].host[2], pend_count[s] * sizeof(TO));
    pend_count[s] = 0;
    return cudaSuccess;
  };

  size_t k = 0;
  for (size_t begin = 0; begin < n && err == cudaSuccess; begin += chunk, ++k) {
    const int s = static_cast<int>(k % kSlots);
    const size_t cnt = std::min(chunk, n - begin);
    StagingSlot& sl = set->slot[s];
    what = "cudaEventSynchronize";
    if ((err = finish(s)) != cudaSuccess) break;
    what = "cudaMemcpyAsync (host to device)";
    if constexpr (size_of<TA>() != 0) {
      parallel_memcpy(sl.host[0], a + begin, cnt * sizeof(TA));
      err = cudaMemcpyAsync(sl.dev[0], sl.host[0], cnt * sizeof(TA), cudaMemcpyHostToDevice,
                            sl.stream);
      if (err != cudaSuccess) break;
    }
    if constexpr (size_of<TB>() != 0) {
      parallel_memcpy(sl.host[1], b + begin, cnt * sizeof(TB));
      err = cudaMemcpyAsync(sl.dev[1], sl.host[1], cnt * sizeof(TB), cudaMemcpyHostToDevice,
                            sl.stream);
      if (err != cudaSuccess) break;
    }
    what = "kernel launch";
    err = launch_ew(op, static_cast<TO*>(sl.dev[2]),
                    size_of<TA>() ? static_cast<const TA*>(sl.dev[0]) : nullptr,
                    size_of<TB>() ? static_cast<const TB*>(sl.dev[1]) : nullptr, cnt, sl.stream,
                    set->device);
    if (err != cudaSuccess) break;
    what = "cudaMemcpyAsync (device to host)";
    err =
        cudaMemcpyAsync(sl.host[2], sl.dev[2], cnt * sizeof(TO), cudaMemcpyDeviceToHost, sl.stream);
    if (err != cudaSuccess) break;
    what = "cudaEventRecord";
    if ((err = cudaEventRecord(sl.done, sl.stream)) != cudaSuccess) break;
    pend_begin[s] = begin;
    pend_count[s] = cnt;
  }
  // Drain in chunk order.
  for (int i = 0; i < kSlots && err == cudaSuccess; ++i) {
    what = "cudaEventSynchronize";
    err = finish(static_cast<int>((k + i) % kSlots));
  }
  if (err != cudaSuccess) {
    cubridge_status st = fail_cuda(err, fn, what);
    for (int i = 0; i < kSlots; ++i) (void)cudaStreamSynchronize(set->slot[i].stream);
    (void)cudaGetLastError();
    if (st != CUBRIDGE_ERR_CUDA_STICKY) release_staging(set);
    return st;
  }
  release_staging(set);
  return CUBRIDGE_OK;
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ELEMENTWISE_HOST_CUH_
