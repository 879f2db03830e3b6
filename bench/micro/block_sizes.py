#!/usr/bin/env python3
"""Elementwise add at 1e6-1e7: block size and vectors per thread, beside torch and cubridge.

An experiment, not part of the library (bench/micro/README.md). Variants of cubridge's vector
kernel (16-byte loads, each thread takes VPT vectors THREADS apart, one block per
THREADS*VPT vectors) are compiled with CuPy's RawKernel and timed in one process with
cubridge.add and torch.add on the same arrays: CuPy's CUDA events on the legacy default
stream, a read-only 256 MiB sum before each call (the GPU is busy while Python enqueues and
L2 is cold), median and quartiles of REPS calls taken round robin. Needs CuPy, torch optional. On the GPU host:

    PYTHONPATH=<dir with the cubridge wheel installed> python3 bench/micro/block_sizes.py
"""

import statistics

import cupy as cp

import cubridge

try:
    import torch
except ImportError:
    torch = None

REPS = 200
SIZES = (1_000_000, 2_000_000, 10_000_000)
SHAPES = [(t, v) for t in (64, 128, 256, 512, 1024) for v in (1, 2, 4)]
ADJACENT = [(t, j) for t in (128, 256) for j in (2, 4)]

SOURCE = r"""
template <class T, int THREADS, int VPT>
__global__ void __launch_bounds__(THREADS) add_vec(T* o, const T* a, const T* b, size_t nvec) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) W { T v[V]; };
  const size_t base = (size_t)blockIdx.x * THREADS * VPT + threadIdx.x;
  W xa[VPT], xb[VPT];
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    size_t i = base + (size_t)j * THREADS;
    if (i < nvec) {
      xa[j] = reinterpret_cast<const W*>(a)[i];
      xb[j] = reinterpret_cast<const W*>(b)[i];
    }
  }
#pragma unroll
  for (int j = 0; j < VPT; ++j) {
    size_t i = base + (size_t)j * THREADS;
    if (i < nvec) {
      W r;
#pragma unroll
      for (int k = 0; k < V; ++k) r.v[k] = xa[j].v[k] + xb[j].v[k];
      reinterpret_cast<W*>(o)[i] = r;
    }
  }
}

// torch's access pattern: each thread takes ADJ adjacent 16-byte vectors (32 bytes of f64
// at ADJ = 2, like torch's 4-element aligned_vector), one block per THREADS*ADJ vectors.
template <class T, int THREADS, int ADJ>
__global__ void __launch_bounds__(THREADS) add_adj(T* o, const T* a, const T* b, size_t nvec) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) W { T v[V]; };
  const size_t base = ((size_t)blockIdx.x * THREADS + threadIdx.x) * ADJ;
  W xa[ADJ], xb[ADJ];
#pragma unroll
  for (int j = 0; j < ADJ; ++j) {
    if (base + j < nvec) {
      xa[j] = reinterpret_cast<const W*>(a)[base + j];
      xb[j] = reinterpret_cast<const W*>(b)[base + j];
    }
  }
#pragma unroll
  for (int j = 0; j < ADJ; ++j) {
    if (base + j < nvec) {
      W r;
#pragma unroll
      for (int k = 0; k < V; ++k) r.v[k] = xa[j].v[k] + xb[j].v[k];
      reinterpret_cast<W*>(o)[base + j] = r;
    }
  }
}

// The library's kernel body before 2026-11-24 (cuda/src/elementwise_gpu.cuh): two tests for
// the scalar head and tail, then a grid-stride loop over the vectors (one pass when the grid
// covers them).
template <class T>
__global__ void __launch_bounds__(256) add_lib(T* out, const T* a, const T* b, size_t n,
                                               size_t head, size_t nvec) {
  constexpr int V = 16 / sizeof(T);
  struct alignas(16) W { T v[V]; };
  const size_t gid = (size_t)blockIdx.x * 256 + threadIdx.x;
  const size_t tail_begin = head + nvec * V;
  if (gid < head) out[gid] = a[gid] + b[gid];
  if (gid < n - tail_begin) {
    size_t i = tail_begin + gid;
    out[i] = a[i] + b[i];
  }
  W* vo = reinterpret_cast<W*>(out + head);
  const W* va = reinterpret_cast<const W*>(a + head);
  const W* vb = reinterpret_cast<const W*>(b + head);
  const size_t stride = (size_t)gridDim.x * 256;
  for (size_t i = gid; i < nvec; i += stride) {
    W xa = va[i], xb = vb[i], r;
#pragma unroll
    for (int k = 0; k < V; ++k) r.v[k] = xa.v[k] + xb.v[k];
    vo[i] = r;
  }
}
"""


def kernels(ctype):
    names = [f"add_vec<{ctype}, {t}, {v}>" for t, v in SHAPES]
    adjacent = [f"add_adj<{ctype}, {t}, {j}>" for t, j in ADJACENT]
    lib = f"add_lib<{ctype}>"
    module = cp.RawModule(code=SOURCE, options=("-std=c++17",),
                          name_expressions=names + adjacent + [lib])
    shapes = {(t, v): module.get_function(n) for (t, v), n in zip(SHAPES, names)}
    adj = {(t, j): module.get_function(n) for (t, j), n in zip(ADJACENT, adjacent)}
    return shapes, adj, module.get_function(lib)


def timed(fns, busy, reps=REPS):
    """Median, 25th and 75th percentile (us) of each fn; the calls go round robin, so that
    a drift of the GPU's clocks or of the host touches every fn alike."""
    pairs = [[(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)] for _ in fns]
    for fn in fns:
        for _ in range(5):
            fn()
    cp.cuda.runtime.deviceSynchronize()
    for rep in range(reps):
        for fn, fn_pairs in zip(fns, pairs):
            start, end = fn_pairs[rep]
            busy()
            start.record()
            fn()
            end.record()
    pairs[-1][-1][1].synchronize()
    out = []
    for fn_pairs in pairs:
        q = statistics.quantiles([cp.cuda.get_elapsed_time(s, e) * 1e3 for s, e in fn_pairs], n=4)
        out.append((q[1], q[0], q[2]))
    return out


def l2_flush():
    """A function that enqueues a read-only sum of 256 MiB: the GPU is busy while Python
    enqueues the timed call, and L2 is cold when it starts."""
    scratch = cp.ones((256 << 20) // 4, dtype=cp.float32)
    total = cp.zeros((), dtype=cp.float32)
    return lambda: cp.sum(scratch, out=total)


def main():
    busy = l2_flush()
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, median (quartiles) of "
          f"{REPS} round-robin calls, us; GB/s at 3 * n * itemsize")
    for dtype, ctype in (("float32", "float"), ("float64", "double")):
        ks, adj, lib = kernels(ctype)
        for n in SIZES:
            a = cubridge.full(n, 1.5, dtype)
            b = cubridge.full(n, 2.5, dtype)
            c = cubridge.empty(n, dtype)
            ca, cb, cc = (cp.asarray(x) for x in (a, b, c))
            nbytes = 3 * n * ca.itemsize
            nvec = n * ca.itemsize // 16
            rows = [("cubridge.add(out=)", lambda: cubridge.add(a, b, out=c)),
                    ("cupy.add(out=)", lambda: cp.add(ca, cb, out=cc))]
            if torch is not None:
                ta, tb, tc = (torch.as_tensor(x, device="cuda") for x in (ca, cb, cc))
                rows.append(("torch.add(out=)", lambda: torch.add(ta, tb, out=tc)))
            rows.append(("raw old library body",
                         lambda: lib(((nvec + 255) // 256,), (256,),
                                     (cc, ca, cb, cp.uint64(n), cp.uint64(0), cp.uint64(nvec)))))
            for (t, v), k in ks.items():
                grid = (nvec + t * v - 1) // (t * v)
                rows.append((f"raw {t} threads x {v} vec",
                             lambda k=k, g=grid, t=t: k((g,), (t,), (cc, ca, cb, cp.uint64(nvec)))))
            for (t, j), k in adj.items():
                grid = (nvec + t * j - 1) // (t * j)
                rows.append((f"raw {t} threads x {j} adjacent",
                             lambda k=k, g=grid, t=t: k((g,), (t,), (cc, ca, cb, cp.uint64(nvec)))))
            print(f"\n{dtype} n={n:.0e}")
            for (name, _), (us, lo, hi) in zip(rows, timed([fn for _, fn in rows], busy)):
                print(f"  {name:28s} {us:7.2f} us ({lo:5.2f}-{hi:5.2f}) {nbytes / us / 1e3:6.0f} GB/s")
            cc[...] = 0
            ks[(256, 1)]((nvec // 256 + 1,), (256,), (cc, ca, cb, cp.uint64(nvec)))
            assert bool((cc == ca + cb).all()), "raw kernel result"
            cc[...] = 0
            adj[(128, 2)]((nvec // 256 + 1,), (128,), (cc, ca, cb, cp.uint64(nvec)))
            assert bool((cc == ca + cb).all()), "raw adjacent kernel result"


if __name__ == "__main__":
    main()
