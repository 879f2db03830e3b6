// The elementwise machinery: out[i] = op(a[i], b[i]) where either input may be
// absent (None). One functor, three paths: CPU threads (here), GPU kernels
// (elementwise_gpu.cuh), and the pipelined host path (elementwise_host.cuh).
#ifndef CUBRIDGE_SRC_ELEMENTWISE_CUH_
#define CUBRIDGE_SRC_ELEMENTWISE_CUH_

#include <cuda_runtime.h>

#include "cpu_pool.h"
#include "elementwise_gpu.cuh"
#include "elementwise_host.cuh"
#include "ops.cuh"
#include "route.h"
#include "status.h"
#include "tuning.h"

namespace cubridge {

template <class Op, class TO, class TA, class TB>
void run_cpu(Op op, TO* out, const TA* a, const TB* b, size_t n) {
  auto body = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = op(load1(a, i), load1(b, i));
  };
  parallel_for(n, kCpuGrain, body);
}

// Runs the op on the path its route chose.
template <class Op, class TO, class TA, class TB>
cubridge_status run_elementwise(const char* fn, const Route& r, Op op, TO* out, const TA* a,
                                const TB* b, size_t n, cudaStream_t stream) {
  if (n == 0) return CUBRIDGE_OK;
  switch (r.path) {
    case Path::kCpu:
      run_cpu(op, out, a, b, n);
      return CUBRIDGE_OK;
    case Path::kDevice: {
      cudaError_t err = launch_ew(op, out, a, b, n, stream, r.device < 0 ? 0 : r.device);
      if (err != cudaSuccess) return fail_cuda(err, fn, "kernel launch");
      return CUBRIDGE_OK;
    }
    case Path::kHost:
      return run_host_pipeline(fn, op, out, a, b, n);
  }
  return fail(CUBRIDGE_ERR_INTERNAL, "%s: bad route", fn);
}

}  // namespace cubridge

#endif  // CUBRIDGE_SRC_ELEMENTWISE_CUH_
