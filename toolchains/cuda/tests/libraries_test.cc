// The CUDA library targets (//toolchains/cuda:cublas, ...): headers compile, the
// shared libraries link and are found at run time from the runfiles (no
// LD_LIBRARY_PATH), and each answers without a GPU. NVRTC compiles a kernel to
// PTX on any machine; with a GPU, cuBLAS multiplies and cuRAND fills for real.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <gtest/gtest.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <nvtx3/nvToolsExt.h>

#include <string>
#include <vector>

namespace {

// The library majors of each CUDA major's pinned set (versions.bzl).
#if CUDART_VERSION >= 13000
constexpr int kCuda = 13, kCublas = 13, kCufft = 12, kCusparse = 12, kCusolver = 12;
#else  // CUDA 12.4: --@cubridge//toolchains/cuda:version=12
constexpr int kCuda = 12, kCublas = 12, kCufft = 11, kCusparse = 12, kCusolver = 11;
#endif

TEST(CudaLibraries, MajorVersions) {
  int v = 0;
  ASSERT_EQ(cublasGetProperty(MAJOR_VERSION, &v), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(v, kCublas);
  ASSERT_EQ(curandGetProperty(MAJOR_VERSION, &v), CURAND_STATUS_SUCCESS);
  EXPECT_EQ(v, 10);
  ASSERT_EQ(cufftGetProperty(MAJOR_VERSION, &v), CUFFT_SUCCESS);
  EXPECT_EQ(v, kCufft);
  ASSERT_EQ(cusparseGetProperty(MAJOR_VERSION, &v), CUSPARSE_STATUS_SUCCESS);
  EXPECT_EQ(v, kCusparse);
  ASSERT_EQ(cusolverGetProperty(MAJOR_VERSION, &v), CUSOLVER_STATUS_SUCCESS);
  EXPECT_EQ(v, kCusolver);
  int major = 0, minor = -1;
  ASSERT_EQ(nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
  EXPECT_EQ(major, kCuda);
  unsigned jit_major = 0, jit_minor = 0;
  ASSERT_EQ(nvJitLinkVersion(&jit_major, &jit_minor), NVJITLINK_SUCCESS);
  EXPECT_EQ(jit_major, static_cast<unsigned>(kCuda));
}

TEST(CudaLibraries, NvrtcCompilesToPtx) {
  const char* src = "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }";
  nvrtcProgram prog;
  ASSERT_EQ(nvrtcCreateProgram(&prog, src, "twice.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char* opts[] = {"--gpu-architecture=compute_90"};
  nvrtcResult compiled = nvrtcCompileProgram(prog, 1, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  std::string log(log_size, '\0');
  nvrtcGetProgramLog(prog, log.data());
  ASSERT_EQ(compiled, NVRTC_SUCCESS) << log;
  size_t ptx_size = 0;
  ASSERT_EQ(nvrtcGetPTXSize(prog, &ptx_size), NVRTC_SUCCESS);
  std::string ptx(ptx_size, '\0');
  ASSERT_EQ(nvrtcGetPTX(prog, ptx.data()), NVRTC_SUCCESS);
  EXPECT_NE(ptx.find(".entry twice"), std::string::npos) << ptx;
  nvrtcDestroyProgram(&prog);
}

TEST(CudaLibraries, NvtxWithoutTool) {
  EXPECT_EQ(nvtxRangePushA("cubridge"), NVTX_NO_PUSH_POP_TRACKING);
  EXPECT_EQ(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
}

bool HaveGpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

TEST(CudaLibraries, CublasSgemm) {
  if (!HaveGpu()) {
    cublasHandle_t handle = nullptr;
    EXPECT_NE(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS) << "cuBLAS without a GPU";
    GTEST_SKIP() << "no CUDA device: cuBLAS linked and loaded, GEMM not run";
  }
  // Column-major 2x2: C = A * B.
  const std::vector<float> a = {1, 3, 2, 4}, b = {5, 7, 6, 8};
  std::vector<float> c(4);
  float *da, *db, *dc;
  ASSERT_EQ(cudaMalloc(&da, 16), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&db, 16), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dc, 16), cudaSuccess);
  cudaMemcpy(da, a.data(), 16, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), 16, cudaMemcpyHostToDevice);
  cublasHandle_t handle;
  ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
  const float one = 1, zero = 0;
  ASSERT_EQ(
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, da, 2, db, 2, &zero, dc, 2),
      CUBLAS_STATUS_SUCCESS);
  cudaMemcpy(c.data(), dc, 16, cudaMemcpyDeviceToHost);
  EXPECT_EQ(c, (std::vector<float>{19, 43, 22, 50}));
  cublasDestroy(handle);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

TEST(CudaLibraries, CurandUniform) {
  if (!HaveGpu()) {
    GTEST_SKIP() << "no CUDA device: cuRAND linked and loaded, fill not run";
  }
  const size_t n = 1 << 16;
  float* d;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
  curandGenerator_t gen;
  ASSERT_EQ(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandSetPseudoRandomGeneratorSeed(gen, 42), CURAND_STATUS_SUCCESS);
  ASSERT_EQ(curandGenerateUniform(gen, d, n), CURAND_STATUS_SUCCESS);
  std::vector<float> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float x : h) {
    ASSERT_GT(x, 0.0f);
    ASSERT_LE(x, 1.0f);
    sum += x;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.01);
  curandDestroyGenerator(gen);
  cudaFree(d);
}

}  // namespace
