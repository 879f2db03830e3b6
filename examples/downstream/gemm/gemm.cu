// The gemm example's C ABI over cuBLAS, cuRAND and an rdc kernel.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand.h>

#include <mutex>

#include "gemm.h"

extern __device__ float gemm_affine_op(float x, float scale, float shift);

namespace {

int Ready() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    return GEMM_NO_DEVICE;
  }
  return GEMM_OK;
}

// Start checks a call on a buffer of n floats: GEMM_BAD_ARGUMENT for a null one, else
// Ready(). The caller returns that status unless it is GEMM_OK and there is work (n > 0).
int Start(const float* buf, size_t n) {
  if (n > 0 && !buf) {
    return GEMM_BAD_ARGUMENT;
  }
  return Ready();
}

// One cuBLAS handle per process, made on first use.
cublasHandle_t Handle(int* status) {
  static std::once_flag once;
  static cublasHandle_t handle = nullptr;
  static cublasStatus_t made = CUBLAS_STATUS_NOT_INITIALIZED;
  std::call_once(once, [] { made = cublasCreate(&handle); });
  *status = made == CUBLAS_STATUS_SUCCESS ? GEMM_OK : GEMM_CUBLAS_ERROR;
  return handle;
}

__global__ void AffineKernel(float* x, size_t n, float scale, float shift) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    x[i] = gemm_affine_op(x[i], scale, shift);
  }
}

// Device buffers freed on every path.
struct DeviceBuffer {
  void* ptr = nullptr;
  ~DeviceBuffer() { cudaFree(ptr); }
  bool Alloc(size_t bytes) { return cudaMalloc(&ptr, bytes == 0 ? 1 : bytes) == cudaSuccess; }
};

}  // namespace

extern "C" {

int gemm_device_count(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

const char* gemm_status_string(int status) {
  switch (status) {
    case GEMM_OK:
      return "ok";
    case GEMM_NO_DEVICE:
      return "no CUDA device";
    case GEMM_BAD_ARGUMENT:
      return "bad argument";
    case GEMM_CUDA_ERROR:
      return "CUDA runtime error";
    case GEMM_CUBLAS_ERROR:
      return "cuBLAS error";
    case GEMM_CURAND_ERROR:
      return "cuRAND error";
    default:
      return "unknown status";
  }
}

int gemm_matmul_device(int dtype, int64_t m, int64_t n, int64_t k, const void* a, const void* b,
                       void* c) {
  if (m < 0 || n < 0 || k < 0 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX ||
      (dtype != GEMM_F32 && dtype != GEMM_F16)) {
    return GEMM_BAD_ARGUMENT;
  }
  if (m == 0 || n == 0) {
    return GEMM_OK;
  }
  if (!a || !b || !c) {
    return GEMM_BAD_ARGUMENT;
  }
  int status = Ready();
  if (status != GEMM_OK) {
    return status;
  }
  cublasHandle_t handle = Handle(&status);
  if (status != GEMM_OK) {
    return status;
  }
  // Row-major C = A B is column-major C^T = B^T A^T: swap the operands.
  const float one = 1.0f, zero = 0.0f;
  cudaDataType_t type = dtype == GEMM_F32 ? CUDA_R_32F : CUDA_R_16F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;  // f16 too: f32 accumulation
  cublasStatus_t s = cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                                  static_cast<int>(m), static_cast<int>(k), &one, b, type,
                                  static_cast<int>(n), a, type, static_cast<int>(k), &zero, c, type,
                                  static_cast<int>(n), compute, CUBLAS_GEMM_DEFAULT);
  return s == CUBLAS_STATUS_SUCCESS ? GEMM_OK : GEMM_CUBLAS_ERROR;
}

int gemm_matmul_host_f32(int64_t m, int64_t n, int64_t k, const float* a, const float* b,
                         float* c) {
  if (m < 0 || n < 0 || k < 0 || (m * k > 0 && !a) || (k * n > 0 && !b) || (m * n > 0 && !c)) {
    return GEMM_BAD_ARGUMENT;
  }
  int status = Ready();
  if (status != GEMM_OK) {
    return status;
  }
  size_t sa = sizeof(float) * m * k, sb = sizeof(float) * k * n, sc = sizeof(float) * m * n;
  DeviceBuffer da, db, dc;
  if (!da.Alloc(sa) || !db.Alloc(sb) || !dc.Alloc(sc) ||
      cudaMemcpy(da.ptr, a, sa, cudaMemcpyHostToDevice) ||
      cudaMemcpy(db.ptr, b, sb, cudaMemcpyHostToDevice)) {
    return GEMM_CUDA_ERROR;
  }
  if (k == 0 && sc > 0 && cudaMemset(dc.ptr, 0, sc) != cudaSuccess) {
    return GEMM_CUDA_ERROR;
  }
  status = k == 0 ? GEMM_OK : gemm_matmul_device(GEMM_F32, m, n, k, da.ptr, db.ptr, dc.ptr);
  if (status != GEMM_OK) {
    return status;
  }
  return cudaMemcpy(c, dc.ptr, sc, cudaMemcpyDeviceToHost) == cudaSuccess ? GEMM_OK
                                                                          : GEMM_CUDA_ERROR;
}

int gemm_uniform_device(float* out, size_t n, uint64_t seed) {
  int status = Start(out, n);
  if (status != GEMM_OK || n == 0) {
    return status;
  }
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS) {
    return GEMM_CURAND_ERROR;
  }
  bool ok = curandSetPseudoRandomGeneratorSeed(gen, seed) == CURAND_STATUS_SUCCESS &&
            curandGenerateUniform(gen, out, n) == CURAND_STATUS_SUCCESS;
  curandDestroyGenerator(gen);
  return ok ? GEMM_OK : GEMM_CURAND_ERROR;
}

int gemm_uniform_host(float* out, size_t n, uint64_t seed) {
  int status = Start(out, n);
  if (status != GEMM_OK || n == 0) {
    return status;
  }
  DeviceBuffer d;
  if (!d.Alloc(sizeof(float) * n)) {
    return GEMM_CUDA_ERROR;
  }
  status = gemm_uniform_device(static_cast<float*>(d.ptr), n, seed);
  if (status != GEMM_OK) {
    return status;
  }
  return cudaMemcpy(out, d.ptr, sizeof(float) * n, cudaMemcpyDeviceToHost) == cudaSuccess
             ? GEMM_OK
             : GEMM_CUDA_ERROR;
}

int gemm_affine_host(float* x, size_t n, float scale, float shift) {
  int status = Start(x, n);
  if (status != GEMM_OK || n == 0) {
    return status;
  }
  DeviceBuffer d;
  if (!d.Alloc(sizeof(float) * n) ||
      cudaMemcpy(d.ptr, x, sizeof(float) * n, cudaMemcpyHostToDevice)) {
    return GEMM_CUDA_ERROR;
  }
  unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  // clang-format off
  AffineKernel<<<blocks, 256>>>(static_cast<float*>(d.ptr), n, scale, shift);
  // clang-format on
  if (cudaGetLastError() != cudaSuccess ||
      cudaMemcpy(x, d.ptr, sizeof(float) * n, cudaMemcpyDeviceToHost) != cudaSuccess) {
    return GEMM_CUDA_ERROR;
  }
  return GEMM_OK;
}

int gemm_synchronize(void) {
  int status = Ready();
  if (status != GEMM_OK) {
    return status;
  }
  return cudaDeviceSynchronize() == cudaSuccess ? GEMM_OK : GEMM_CUDA_ERROR;
}

}  // extern "C"
