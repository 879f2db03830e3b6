#!/usr/bin/env python3
"""Elementwise add near a whole number of waves: does a second, partial wave cost the 1e6 gap?

An experiment, not part of the library (bench/micro/README.md). At one 16-byte vector per thread
and 256 threads per block, f64 add of 1e6 needs 1954 blocks; an H200 holds 132 SMs x 8 of them,
so the grid runs in 1.85 waves, while torch's add (128 threads, 1024 elements per block) fits
1e6 in one. This sweeps n across those edges and times, round robin in one process on the same
arrays (CuPy events on the legacy default stream, a read-only 256 MiB sum before each call):

- cubridge.add(out=) and torch.add(out=);
- the library's shape launched raw (256 threads x 1 vector);
- 256 threads x 2 vectors a block apart (a template per vector count);
- one kernel for both: each thread takes vector i and, when i + stride is inside, i + stride;
  launched with stride = nvec (every thread one vector) and with half the grid (two each);
- torch's layout and its neighbours: THREADS x CHUNKS x ADJ, each thread CHUNKS chunks of ADJ
  adjacent 16-byte vectors, a block's width apart (torch's f64 add: 128 x 2 x 2).

On the GPU host, with the wheel installed in DIR:

    PYTHONPATH=DIR python3 bench/micro/waves.py
"""

import cupy as cp

import block_sizes
import cubridge

try:
    import torch
except ImportError:
    torch = None

REPS = 150
# (threads, chunks, adjacent vectors): torch's f64 add is (128, 2, 2).
CHUNKED = ((128, 2, 2), (256, 2, 2), (128, 1, 2), (128, 4, 1))
F64_SIZES = (300_000, 500_000, 800_000, 1_000_000, 1_100_000, 2_000_000, 3_000_000, 10_000_000,
             50_000_000)

SOURCE = r"""
// torch's layout (its vectorized_elementwise_kernel for f64 add, read from libtorch_cuda's SASS):
// each thread takes CHUNKS chunks of ADJ adjacent 16-byte vectors, THREADS*ADJ vectors apart.
template <class T, int THREADS, int CHUNKS, int ADJ>
__global__ void __launch_bounds__(THREADS) add_chunks(T* o, const T* a, const T* b, size_t nvec) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) W { T v[V]; };
  const size_t base = (size_t)blockIdx.x * THREADS * CHUNKS * ADJ + (size_t)threadIdx.x * ADJ;
  W xa[CHUNKS * ADJ], xb[CHUNKS * ADJ];
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
    for (int j = 0; j < ADJ; ++j) {
      size_t i = base + (size_t)c * THREADS * ADJ + j;
      if (i < nvec) {
        xa[c * ADJ + j] = reinterpret_cast<const W*>(a)[i];
        xb[c * ADJ + j] = reinterpret_cast<const W*>(b)[i];
      }
    }
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
    for (int j = 0; j < ADJ; ++j) {
      size_t i = base + (size_t)c * THREADS * ADJ + j;
      if (i < nvec) {
        W r;
#pragma unroll
        for (int k = 0; k < V; ++k) r.v[k] = xa[c * ADJ + j].v[k] + xb[c * ADJ + j].v[k];
        reinterpret_cast<W*>(o)[i] = r;
      }
    }
}

// One kernel, one or two vectors a thread: i and, if inside, i + stride (stride >= grid size).
template <class T>
__global__ void __launch_bounds__(256) add_two(T* o, const T* a, const T* b, size_t nvec,
                                               size_t stride) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) W { T v[V]; };
  const size_t i = (size_t)blockIdx.x * 256 + threadIdx.x;
  const size_t k2 = i + stride;
  W xa0, xb0, xa1, xb1;
  if (i < nvec) {
    xa0 = reinterpret_cast<const W*>(a)[i];
    xb0 = reinterpret_cast<const W*>(b)[i];
  }
  if (k2 < nvec) {
    xa1 = reinterpret_cast<const W*>(a)[k2];
    xb1 = reinterpret_cast<const W*>(b)[k2];
  }
  if (i < nvec) {
    W r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = xa0.v[k] + xb0.v[k];
    reinterpret_cast<W*>(o)[i] = r;
  }
  if (k2 < nvec) {
    W r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = xa1.v[k] + xb1.v[k];
    reinterpret_cast<W*>(o)[k2] = r;
  }
}
"""


def kernels(ctype):
    names = [f"add_vec<{ctype}, 256, {v}>" for v in (1, 2, 4)] + [f"add_two<{ctype}>"] + [
        f"add_chunks<{ctype}, {t}, {c}, {j}>" for t, c, j in CHUNKED]
    # add_vec (THREADS x VPT vectors, a block apart) is block_sizes.py's.
    module = cp.RawModule(code=block_sizes.SOURCE + SOURCE, options=("-std=c++17",),
                          name_expressions=names)
    return [module.get_function(n) for n in names]


def main():
    props = cp.cuda.runtime.getDeviceProperties(0)
    resident = props["multiProcessorCount"] * props["maxThreadsPerMultiProcessor"] // 256
    busy = block_sizes.l2_flush()
    print(f"{props['name'].decode()}: {resident} resident blocks of 256 threads; median of "
          f"{REPS} round-robin calls, us")
    columns = ["waves", "cubridge", "torch", "256x1", "256x2", "256x4", "two:1", "two:2"] + [
        f"{t}x{c}x{j}" for t, c, j in CHUNKED]
    for dtype, ctype, sizes in (("float64", "double", F64_SIZES),
                                ("float32", "float", tuple(2 * n for n in F64_SIZES))):
        vec1, vec2, vec4, two, *chunked = kernels(ctype)
        print(f"\n{dtype}\n{'n':>10s} " + " ".join(f"{c:>8s}" for c in columns))
        for n in sizes:
            a = cubridge.full(n, 1.5, dtype)
            b = cubridge.full(n, 2.5, dtype)
            c = cubridge.empty(n, dtype)
            ca, cb, cc = (cp.asarray(x) for x in (a, b, c))
            nvec = n * ca.itemsize // 16
            g1 = (nvec + 255) // 256
            g2 = (nvec + 511) // 512
            g4 = (nvec + 1023) // 1024
            u64 = cp.uint64
            rows = [lambda: cubridge.add(a, b, out=c)]
            rows.append((lambda: torch.add(ta, tb, out=tc)) if torch else (lambda: None))
            if torch:
                ta, tb, tc = (torch.as_tensor(x, device="cuda") for x in (ca, cb, cc))
            rows += [
                lambda: vec1((g1,), (256,), (cc, ca, cb, u64(nvec))),
                lambda: vec2((g2,), (256,), (cc, ca, cb, u64(nvec))),
                lambda: vec4((g4,), (256,), (cc, ca, cb, u64(nvec))),
                lambda: two((g1,), (256,), (cc, ca, cb, u64(nvec), u64(nvec))),
                lambda: two((g2,), (256,), (cc, ca, cb, u64(nvec), u64(g2 * 256))),
            ]
            for (t, ch, j), k in zip(CHUNKED, chunked):
                g = (nvec + t * ch * j - 1) // (t * ch * j)
                rows.append(lambda k=k, g=g, t=t: k((g,), (t,), (cc, ca, cb, u64(nvec))))
            times = [median for median, _, _ in block_sizes.timed(rows, busy, REPS)]
            print(f"{n:10.2e} {g1 / resident:8.2f} " + " ".join(f"{t:8.2f}" for t in times))
            for launch in rows[2:]:
                cc[...] = 0
                launch()
                assert bool((cc == ca + cb).all()), "raw kernel result"


if __name__ == "__main__":
    main()
