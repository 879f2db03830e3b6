// Kernel-shape experiments for cubridge's elementwise and reduction kernels
// (not part of the library). Build and run on the GPU host:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o shapes bench/micro/shapes.cu && ./shapes
// Times add (float, double) and sum (float and double into a double) with CUDA
// events, L2 cold (a 256 MiB read before each timed call), median of REPS.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <cub/device/device_reduce.cuh>
#include <vector>

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

constexpr int kT = 256;
int g_sms = 132;

template <class T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

// ---- elementwise variants ----------------------------------------------------

// A: persistent grid-stride, ILP vectors per thread per iteration (current).
template <class T, int ILP>
__global__ void __launch_bounds__(kT) ew_persist(T* o, const T* a, const T* b, size_t nvec) {
  constexpr int V = 16 / sizeof(T);
  using W = Vec<T, V>;
  size_t stride = (size_t)gridDim.x * kT * ILP;
  for (size_t base = (size_t)blockIdx.x * kT * ILP + threadIdx.x; base < nvec; base += stride) {
    W xa[ILP], xb[ILP];
#pragma unroll
    for (int j = 0; j < ILP; ++j) {
      size_t i = base + (size_t)j * kT;
      if (i < nvec) {
        xa[j] = reinterpret_cast<const W*>(a)[i];
        xb[j] = reinterpret_cast<const W*>(b)[i];
      }
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j) {
      size_t i = base + (size_t)j * kT;
      if (i < nvec) {
        W r;
#pragma unroll
        for (int k = 0; k < V; ++k) r.v[k] = xa[j].v[k] + xb[j].v[k];
        reinterpret_cast<W*>(o)[i] = r;
      }
    }
  }
}

template <class W>
__device__ __forceinline__ W ldcs(const W* p) {
  W r;
  *reinterpret_cast<float4*>(&r) = __ldcs(reinterpret_cast<const float4*>(p));
  return r;
}
template <class W>
__device__ __forceinline__ void stcs(W* p, W v) {
  __stcs(reinterpret_cast<float4*>(p), *reinterpret_cast<float4*>(&v));
}

// B: one tile of kT*K vectors per block, no loop; CS: streaming hints.
template <class T, int K, bool CS>
__global__ void __launch_bounds__(kT) ew_tile(T* o, const T* a, const T* b, size_t nvec) {
  constexpr int V = 16 / sizeof(T);
  using W = Vec<T, V>;
  size_t base = (size_t)blockIdx.x * kT * K + threadIdx.x;
  W xa[K], xb[K];
  const W* pa = reinterpret_cast<const W*>(a);
  const W* pb = reinterpret_cast<const W*>(b);
  W* po = reinterpret_cast<W*>(o);
  if (base + (size_t)(K - 1) * kT < nvec) {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      size_t i = base + (size_t)j * kT;
      xa[j] = CS ? ldcs(pa + i) : pa[i];
      xb[j] = CS ? ldcs(pb + i) : pb[i];
    }
#pragma unroll
    for (int j = 0; j < K; ++j) {
      W r;
#pragma unroll
      for (int k = 0; k < V; ++k) r.v[k] = xa[j].v[k] + xb[j].v[k];
      if (CS)
        stcs(po + base + (size_t)j * kT, r);
      else
        po[base + (size_t)j * kT] = r;
    }
  } else {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      size_t i = base + (size_t)j * kT;
      if (i < nvec) {
        W r;
        W x = pa[i], y = pb[i];
#pragma unroll
        for (int k = 0; k < V; ++k) r.v[k] = x.v[k] + y.v[k];
        po[i] = r;
      }
    }
  }
}

// ---- reductions ----------------------------------------------------------------

__device__ unsigned int g_count = 0;

// Single pass: grid-stride vector loads into double lanes, block tree,
// per-block partial, the last block sums the partials in block order.
template <class W>
__device__ __forceinline__ W ld256(const W* p) {
  float4 r;
  asm volatile("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
               : "l"(p));
  return *reinterpret_cast<W*>(&r);
}

template <class T, int ILP, int LD = 0>
__global__ void __launch_bounds__(kT)
    sum_1pass(const T* x, size_t nvec, double* partial, double* result) {
  constexpr int V = 16 / sizeof(T);
  using W = Vec<T, V>;
  double acc[ILP];
#pragma unroll
  for (int j = 0; j < ILP; ++j) acc[j] = 0;
  size_t stride = (size_t)gridDim.x * kT * ILP;
  const W* px = reinterpret_cast<const W*>(x);
  for (size_t base = (size_t)blockIdx.x * kT * ILP + threadIdx.x; base < nvec; base += stride) {
    W xv[ILP];
#pragma unroll
    for (int j = 0; j < ILP; ++j) {
      size_t i = base + (size_t)j * kT;
      if (i < nvec)
        xv[j] = LD == 0 ? px[i] : LD == 1 ? ldcs(px + i) : ld256(px + i);
      else
        for (int k = 0; k < V; ++k) xv[j].v[k] = 0;
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) acc[j] = __dadd_rn(acc[j], (double)xv[j].v[k]);
  }
  double s = acc[0];
#pragma unroll
  for (int j = 1; j < ILP; ++j) s = __dadd_rn(s, acc[j]);
  for (int off = 16; off > 0; off /= 2) s = __dadd_rn(s, __shfl_down_sync(0xffffffffu, s, off));
  __shared__ double warp[kT / 32];
  __shared__ bool last;
  if ((threadIdx.x & 31) == 0) warp[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b = warp[0];
    for (int w = 1; w < kT / 32; ++w) b = __dadd_rn(b, warp[w]);
    partial[blockIdx.x] = b;
    __threadfence();
    unsigned prev = atomicAdd(&g_count, 1u);
    last = prev == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // Last block: partials in fixed order (each thread a strided slice, then tree).
  __threadfence();
  double t = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += kT)
    t = __dadd_rn(t, ((volatile double*)partial)[i]);
  for (int off = 16; off > 0; off /= 2) t = __dadd_rn(t, __shfl_down_sync(0xffffffffu, t, off));
  __syncthreads();
  if ((threadIdx.x & 31) == 0) warp[threadIdx.x / 32] = t;
  __syncthreads();
  if (threadIdx.x == 0) {
    double r = warp[0];
    for (int w = 1; w < kT / 32; ++w) r = __dadd_rn(r, warp[w]);
    *result = r;
    g_count = 0;
  }
}

// ---- harness ------------------------------------------------------------------

float* g_busy;
double* g_busy_out;
__global__ void busy_read(const float4* p, size_t n, double* out) {
  float s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.f) *out = s;
}

template <class F>
double median_us(F f, int reps) {
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  for (int r = 0; r < reps; ++r) {
    busy_read<<<g_sms * 4, 256>>>((const float4*)g_busy, (256u << 20) / 16, g_busy_out);
    CK(cudaEventRecord(ev[2 * r]));
    f();
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  std::vector<float> ms(reps);
  for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return ms[reps / 2] * 1e3;
}

template <class T>
__global__ void fill(T* p, size_t n, T v) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = v;
}

template <class K>
int resident(K k) {
  int b = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, kT, 0));
  return b;
}

template <class T>
void run_ew(size_t n, int reps) {
  const char* tn = sizeof(T) == 4 ? "f32" : "f64";
  T *a, *b, *o;
  CK(cudaMalloc(&a, n * sizeof(T)));
  CK(cudaMalloc(&b, n * sizeof(T)));
  CK(cudaMalloc(&o, n * sizeof(T)));
  fill<<<1024, 256>>>(a, n, T(1));
  fill<<<1024, 256>>>(b, n, T(2));
  constexpr int V = 16 / sizeof(T);
  size_t nvec = n / V;
  double bytes = 3.0 * n * sizeof(T);
  auto report = [&](const char* name, double us) {
    printf("ew %s n=%.0e %-22s %9.1f us %7.0f GB/s\n", tn, (double)n, name, us, bytes / us / 1e3);
  };
  auto check = [&]() {
    T h[3];
    CK(cudaMemcpy(h, o + n - 3, sizeof h, cudaMemcpyDeviceToHost));
    if (h[2] != T(3)) printf("  BAD result %f\n", (double)h[2]);
    CK(cudaMemset(o, 0, n * sizeof(T)));
  };
  report("memcpy d2d (2n)",
         median_us([&] { cudaMemcpyAsync(o, a, n * sizeof(T), cudaMemcpyDeviceToDevice); }, reps) *
             1.5);
  {
    int r = resident(ew_persist<T, 4>);
    unsigned g = std::min<size_t>((nvec + kT * 4 - 1) / (kT * 4), (size_t)g_sms * r);
    report("persist ilp4 (current)",
           median_us([&] { ew_persist<T, 4><<<g, kT>>>(o, a, b, nvec); }, reps));
    check();
  }
  {
    int r = resident(ew_persist<T, 2>);
    unsigned g = std::min<size_t>((nvec + kT * 2 - 1) / (kT * 2), (size_t)g_sms * r);
    report("persist ilp2", median_us([&] { ew_persist<T, 2><<<g, kT>>>(o, a, b, nvec); }, reps));
    check();
  }
#define TILE(K, CS)                                                                \
  {                                                                                \
    unsigned g = (nvec + kT * K - 1) / (kT * K);                                   \
    report("tile k=" #K " cs=" #CS,                                                \
           median_us([&] { ew_tile<T, K, CS><<<g, kT>>>(o, a, b, nvec); }, reps)); \
    check();                                                                       \
  }
  TILE(1, false)
  TILE(2, false)
  TILE(4, false)
  TILE(8, false)
  TILE(1, true)
  TILE(2, true)
  TILE(4, true)
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(o));
}

template <class T>
struct ToDbl {
  __host__ __device__ double operator()(T v) const { return (double)v; }
};
struct Add {
  __host__ __device__ double operator()(double a, double b) const { return a + b; }
};

template <class T>
void run_sum(size_t n, int reps) {
  const char* tn = sizeof(T) == 4 ? "f32" : "f64";
  T* x;
  CK(cudaMalloc(&x, n * sizeof(T)));
  fill<<<1024, 256>>>(x, n, T(1));
  double *res, *partial;
  CK(cudaMallocHost(&res, 64));
  CK(cudaMalloc(&partial, 1 << 20));
  double bytes = 1.0 * n * sizeof(T);
  auto report = [&](const char* name, double us) {
    printf("sum %s n=%.0e %-22s %9.1f us %7.0f GB/s  (result %.1f)\n", tn, (double)n, name, us,
           bytes / us / 1e3, *res);
  };
  using ToD = ToDbl<T>;
  size_t tb = 0;
  CK(cub::DeviceReduce::TransformReduce(nullptr, tb, x, res, (int)std::min<size_t>(n, 0x7fffffff),
                                        Add{}, ToD{}, 0.0, 0));
  void* temp;
  CK(cudaMalloc(&temp, tb));
  report("cub transformreduce", median_us(
                                    [&] {
                                      size_t t = tb;
                                      cub::DeviceReduce::TransformReduce(temp, t, x, res, (int)n,
                                                                         Add{}, ToD{}, 0.0, 0);
                                    },
                                    reps));
  constexpr int V = 16 / sizeof(T);
  size_t nvec = n / V;
#define ONEPASS(ILP, PER, LD)                                                                      \
  {                                                                                                \
    unsigned g = std::min<size_t>((nvec + kT * ILP - 1) / (kT * ILP), (size_t)g_sms * PER);        \
    char nm[64];                                                                                   \
    snprintf(nm, sizeof nm, "1pass ilp%d %dx%d ld%d", ILP, PER, g_sms, LD);                        \
    report(nm, median_us([&] { sum_1pass<T, ILP, LD><<<g, kT>>>(x, nvec, partial, res); }, reps)); \
  }
  ONEPASS(4, 8, 0)
  ONEPASS(4, 8, 1)
  ONEPASS(4, 8, 2)
  ONEPASS(2, 8, 2)
  ONEPASS(4, 6, 0)
  ONEPASS(8, 8, 0)
  ONEPASS(2, 16, 0)
  CK(cudaFree(temp));
  CK(cudaFree(x));
  CK(cudaFree(partial));
  CK(cudaFreeHost(res));
}

#include <chrono>
// Back-to-back launches of a 1000-element add: the floor of an async small op.
void launch_floor() {
  float *a, *b, *o;
  CK(cudaMalloc(&a, 4096 * 3));
  b = a + 1024;
  o = b + 1024;
  for (int round = 0; round < 3; ++round) {
    const int calls = 20000;
    CK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) ew_tile<float, 1, false><<<1, kT>>>(o, a, b, 250);
    auto t1 = std::chrono::steady_clock::now();
    CK(cudaDeviceSynchronize());
    auto t2 = std::chrono::steady_clock::now();
    printf("launch floor: %.2f us per launch enqueued, %.2f us per launch done\n",
           std::chrono::duration<double, std::micro>(t1 - t0).count() / calls,
           std::chrono::duration<double, std::micro>(t2 - t0).count() / calls);
  }
  CK(cudaFree(a));
}

int main(int argc, char** argv) {
  CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&g_busy, 256u << 20));
  CK(cudaMemset(g_busy, 0, 256u << 20));
  CK(cudaMalloc(&g_busy_out, 8));
  printf("SMs %d, resident persist<float,4> %d\n", g_sms, resident(ew_persist<float, 4>));
  launch_floor();
  if (argc > 1) return 0;
  for (size_t n : {(size_t)1000000, (size_t)10000000, (size_t)400000000}) {
    int reps = n >= 100000000 ? 20 : 50;
    run_ew<float>(n, reps);
    run_ew<double>(n, reps);
    run_sum<float>(n, reps);
    run_sum<double>(n, reps);
  }
  return 0;
}
