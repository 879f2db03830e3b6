// What one kernel launch costs the host through each CUDA entry point: the
// runtime's <<< >>> (the library's launch.cuh), cudaLaunchKernel, and the
// driver's cuLaunchKernel on the CUfunction behind the same kernel. A small
// add of 1000 floats, on the legacy default stream and on a stream of its
// own; bursts of 16 launches timed to the end of their enqueue (far below the
// queue's depth, so the GPU never holds the host back), median per launch.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

#include <algorithm>
#include <chrono>
#include <vector>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

namespace {

using LaunchFn = decltype(&cuLaunchKernel);

constexpr int kBurst = 16;
constexpr int kRounds = 3000;
constexpr size_t kN = 1000;

struct Args {
  const float* a;
  const float* b;
  float* c;
  size_t n;
};

double now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

// Median µs per launch of `launch_one` in bursts of kBurst, synchronising
// between bursts (not timed).
template <class F>
double per_launch(cudaStream_t s, F launch_one) {
  std::vector<double> t;
  t.reserve(kRounds);
  for (int r = 0; r < kRounds; ++r) {
    cudaStreamSynchronize(s);
    double t0 = now_us();
    for (int k = 0; k < kBurst; ++k) launch_one();
    t.push_back((now_us() - t0) / kBurst);
  }
  cudaStreamSynchronize(s);
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

}  // namespace

int main() {
  Args x{nullptr, nullptr, nullptr, kN};
  float *a, *b, *c;
  check(cudaMalloc(&a, kN * 4), "cudaMalloc");
  check(cudaMalloc(&b, kN * 4), "cudaMalloc");
  check(cudaMalloc(&c, kN * 4), "cudaMalloc");
  x.a = a, x.b = b, x.c = c;

  cudaFunction_t f;
  check(cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(&add)), "cudaGetFuncBySymbol");
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult q;
  check(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &q),
        "cudaGetDriverEntryPointByVersion");
  LaunchFn cu_launch = reinterpret_cast<LaunchFn>(entry);

  cudaStream_t own;
  check(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), "cudaStreamCreate");
  const unsigned grid = (kN + 255) / 256;
  void* params[] = {&x.a, &x.b, &x.c, &x.n};

  for (int pass = 0; pass < 3; ++pass) {
    for (cudaStream_t s : {static_cast<cudaStream_t>(nullptr), own}) {
      double chevron = per_launch(s, [&] {
        add<<<grid, 256, 0, s>>>(x.a, x.b, x.c, x.n);
        (void)cudaGetLastError();
      });
      double runtime = per_launch(s, [&] {
        (void)cudaLaunchKernel(reinterpret_cast<const void*>(&add), dim3(grid), dim3(256), params,
                               0, s);
      });
      double driver = per_launch(s, [&] {
        (void)cu_launch(reinterpret_cast<CUfunction>(f), grid, 1, 1, 256, 1, 1, 0,
                        reinterpret_cast<CUstream>(s), params, nullptr);
      });
      printf("pass %d %-14s <<<>>> %.3f  cudaLaunchKernel %.3f  cuLaunchKernel %.3f us/launch\n",
             pass, s ? "own stream" : "legacy default", chevron, runtime, driver);
    }
  }
  check(cudaDeviceSynchronize(), "kernels");
  return 0;
}
