// The gemm example's kernels behind cubridge's bindings (matmul.bind,
// uniform.bind, affine.bind): a cuBLAS GEMM, a cuRAND fill and an rdc kernel,
// each on the launch's device and stream, with a host path where one makes sense.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand.h>

#include "affine.bind.h"
#include "matmul.bind.h"
#include "uniform.bind.h"

extern __host__ __device__ float gemm_affine_op(float x, float scale, float shift);

namespace {

// One cuBLAS handle per thread and device (a handle belongs to the device
// current when it was made; setting its stream is not safe across threads).
cublasHandle_t Handle(int device, cublasStatus_t* status) {
  constexpr int kDevices = 64;
  thread_local cublasHandle_t handles[kDevices] = {};
  *status = CUBLAS_STATUS_SUCCESS;
  if (device >= kDevices) {
    *status = CUBLAS_STATUS_NOT_SUPPORTED;
    return nullptr;
  }
  if (handles[device] == nullptr) *status = cublasCreate(&handles[device]);
  return handles[device];
}

template <class T>
float ToFloat(T v) {
  return static_cast<float>(v);
}
template <>
float ToFloat<__half>(__half v) {
  return __half2float(v);
}
template <class T>
T FromFloat(float v) {
  return static_cast<T>(v);
}
template <>
__half FromFloat<__half>(float v) {
  return __float2half(v);
}

// The host path: the CPU backend's (and a reference), f32 accumulation as cuBLAS's.
template <class T>
void MatmulHost(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += ToFloat(a[i * k + p]) * ToFloat(b[p * n + j]);
      c[i * n + j] = FromFloat<T>(sum);
    }
  }
}

__global__ void AffineKernel(float* x, int64_t n, float scale, float shift) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = gemm_affine_op(x[i], scale, shift);
}

}  // namespace

extern "C" cubridge_status gemm_matmul(const cubridge_launch* l, const cubridge_view* a,
                                       const cubridge_view* b, const cubridge_view* c, int64_t m,
                                       int64_t k, int64_t n) {
  const bool f32 = a->dtype == CUBRIDGE_FLOAT32;
  if (l->device < 0) {
    if (f32) {
      MatmulHost(static_cast<const float*>(a->data), static_cast<const float*>(b->data),
                 static_cast<float*>(c->data), m, k, n);
    } else {
      MatmulHost(static_cast<const __half*>(a->data), static_cast<const __half*>(b->data),
                 static_cast<__half*>(c->data), m, k, n);
    }
    return CUBRIDGE_OK;
  }
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) {
    return cubridge_launch_fail(
        l, CUBRIDGE_ERR_INVALID_ARGUMENT, "m, k and n must fit cuBLAS's int (%lld, %lld, %lld)",
        static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n));
  }
  if (k == 0) {  // c = 0: nothing for cuBLAS to multiply
    return cubridge_launch_cuda(
        l,
        cudaMemsetAsync(c->data, 0, static_cast<size_t>(m * n) * (f32 ? 4 : 2),
                        reinterpret_cast<cudaStream_t>(l->stream)),
        "cudaMemsetAsync");
  }
  cublasStatus_t s;
  cublasHandle_t handle = Handle(l->device, &s);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasSetStream(handle, reinterpret_cast<cudaStream_t>(l->stream));
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  const float one = 1.0f, zero = 0.0f;
  const cudaDataType_t type = f32 ? CUDA_R_32F : CUDA_R_16F;
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                     static_cast<int>(k), &one, b->data, type, static_cast<int>(n), a->data, type,
                     static_cast<int>(k), &zero, c->data, type, static_cast<int>(n),
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    return cubridge_launch_fail(l, CUBRIDGE_ERR_CUDA, "cuBLAS failed: %s",
                                cublasGetStatusString(s));
  }
  return CUBRIDGE_OK;
}

extern "C" cubridge_status gemm_uniform(const cubridge_launch* l, int64_t n, int64_t seed,
                                        const cubridge_view* u) {
  if (l->device < 0) {
    return cubridge_launch_fail(l, CUBRIDGE_ERR_NO_DEVICE, "cuRAND's generator needs a GPU");
  }
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS) {
    return cubridge_launch_fail(l, CUBRIDGE_ERR_CUDA, "curandCreateGenerator failed");
  }
  curandStatus_t s = curandSetStream(gen, reinterpret_cast<cudaStream_t>(l->stream));
  if (s == CURAND_STATUS_SUCCESS)
    s = curandSetPseudoRandomGeneratorSeed(gen, static_cast<unsigned long long>(seed));
  if (s == CURAND_STATUS_SUCCESS)
    s = curandGenerateUniform(gen, static_cast<float*>(u->data), static_cast<size_t>(n));
  curandDestroyGenerator(gen);
  if (s != CURAND_STATUS_SUCCESS) {
    return cubridge_launch_fail(l, CUBRIDGE_ERR_CUDA, "cuRAND failed with status %d",
                                static_cast<int>(s));
  }
  return CUBRIDGE_OK;
}

extern "C" cubridge_status gemm_affine(const cubridge_launch* l, const cubridge_view* x,
                                       double scale, double shift, int64_t n) {
  float* xs = static_cast<float*>(x->data);
  const float sc = static_cast<float>(scale), sh = static_cast<float>(shift);
  if (l->device < 0) {
    for (int64_t i = 0; i < n; ++i) xs[i] = gemm_affine_op(xs[i], sc, sh);
    return CUBRIDGE_OK;
  }
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  // clang-format off
  AffineKernel<<<blocks, 256, 0, reinterpret_cast<cudaStream_t>(l->stream)>>>(xs, n, sc, sh);
  // clang-format on
  return cubridge_launch_cuda(l, cudaGetLastError(), "AffineKernel");
}
