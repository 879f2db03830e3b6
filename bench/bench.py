#!/usr/bin/env python3
"""cubridge vs CuPy vs torch vs NumPy, side by side, in one run.

Usage (on the GPU host, after installing the wheel into DIR):
    PYTHONPATH=DIR python bench/bench.py --out OUT
    python bench/bench.py --quick --libs cubridge,numpy        # smoke run
    CUBRIDGE_BACKEND=cpu python bench/bench.py --libs cubridge,numpy   # CPU backend

What is measured (bench/README.md has the details):
  kernel  add, mul, axpy, sum, dot; float32, float64; n in 1e3 .. 4e8, on device arrays
          (cubridge.Array; CuPy and torch get zero-copy views of the same memory).
          Time per call from CUDA events on the legacy default stream, one event pair per
          call, each call preceded by a read-only 256 MiB "busy" kernel so that the GPU is
          still busy while Python enqueues (start, op, end): the events then bracket the GPU
          work and not the Python overhead, and L2 is cold. Median and min of >= 20 calls.
          sum/dot: every GPU library delivers the result to the host as a Python number
          (cubridge's reductions are blocking); CuPy's and torch's kernel-only time is kept
          as device_scalar_median_ms. NumPy (and the CPU backend): perf_counter per call,
          or per batch of calls for calls under 20 us (the batch mean is one sample).
  wall    the same ops at small n: thousands of calls in a perf_counter loop, one
          synchronize at the end (async ops); sum/dot return a Python number each call.
  host    float32 add on NumPy arrays in and out: cubridge.add(a, b, out=o) vs
          cupy.asnumpy(cupy.add(cupy.asarray(a), cupy.asarray(b))) vs torch vs numpy.add.
Effective bandwidth: add/sub/mul/div/axpy 3*n*itemsize, scale 2*n*itemsize, sum/min/max
n*itemsize, dot 2*n*itemsize per call.

Nothing here raises on a missing library or a failing size: it is reported and skipped.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback

perf = time.perf_counter

SIZES = [10**3, 10**4, 10**5, 10**6, 10**7, 10**8, 4 * 10**8]
QUICK_SIZES = [10**3, 10**6, 10**7]
WALL_SIZES = [10**3, 10**5]
QUICK_WALL_SIZES = [10**3]
HOST_SIZES = [10**3, 10**6, 10**7, 10**8]
QUICK_HOST_SIZES = [10**3, 10**6, 10**7]
OPS = ["add", "mul", "axpy", "sum", "dot"]  # the default; the GPU targets compare these
MORE_OPS = ["sub", "div", "scale", "min", "max"]  # with --ops all: every op of the API
REDUCTIONS = ("sum", "dot", "min", "max")  # return a number
DTYPES = ["float32", "float64"]
BYTES_PER_ELEM = {"add": 3, "sub": 3, "mul": 3, "div": 3, "axpy": 3, "scale": 2, "sum": 1, "dot": 2, "min": 1, "max": 1}  # x itemsize
ITEMSIZE = {"float32": 4, "float64": 8}
ALL_LIBS = ["cubridge", "cupy", "torch", "numpy"]
ALPHA = 1e-3
VAL_A, VAL_B, VAL_C = 1.0, 2.0, 0.25
BUSY_BYTES = 256 << 20
GiB = 1 << 30


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def short_err(e: BaseException) -> str:
    s = f"{type(e).__name__}: {e}"
    s = " ".join(s.split())
    return s if len(s) <= 300 else s[:297] + "..."


def fmt_n(n: int) -> str:
    if n <= 0:
        return str(n)
    e = int(round(math.log10(n)))
    if 10**e == n:
        return f"1e{e}"
    m = n / 10**int(math.floor(math.log10(n)))
    return f"{m:g}e{int(math.floor(math.log10(n)))}"


def host_mem_available() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# ---- libraries ---------------------------------------------------------------


class Lib:
    """One library under test. Subclasses fill in the ops."""

    name = "?"
    gpu = True

    def __init__(self):
        self.ok = False
        self.note = ""
        self.version = None
        self.view_kind = {}  # dtype -> "zero-copy view" / "own copy"

    # arrays
    def make(self, n, dtype, value):  # a new array filled with value (master arrays)
        raise NotImplementedError

    def view(self, master, master_lib, n, dtype, value):  # the same memory, or a copy
        raise NotImplementedError

    def fill(self, arr, value):
        raise NotImplementedError

    def to_numpy(self, arr):
        raise NotImplementedError

    def sync(self):
        pass

    def release_pools(self):
        pass

    # ops: calls(a, b, c) -> {op: fn} the library's own call per op; kernel(op, A) -> fn for
    # the kernel timing; wall(op, A) -> fn for the wall loop (reductions to a Python number)
    def calls(self, a, b, c):
        raise NotImplementedError

    def kernel(self, op, A):
        return self.calls(A["a"], A["b"], A["c"])[op]

    def number(self, r):  # a reduction's result as a Python number
        return r

    def wall(self, op, A):
        f = self.kernel(op, A)
        if op in REDUCTIONS:
            return lambda: self.number(f())
        return f

    def extra_wall(self, A):  # name -> fn, measured at small n (allocating variants)
        return {}

    def second_gpu(self, n, dtype):  # (label -> fn, sync) on device 1, device 0 current
        raise NotImplementedError("no second-GPU calls")

    def graph_of_adds(self, n, dtype, count):  # fn launching `count` adds recorded in its own CUDA graph
        raise NotImplementedError("no CUDA graphs")

    def own_stream(self, n, dtype):  # (label -> fn, sync, done): adds on a stream the library made
        raise NotImplementedError("no streams")


class CubridgeLib(Lib):
    name = "cubridge"

    def __init__(self):
        super().__init__()
        try:
            import cubridge  # noqa: F401

            self.cb = cubridge
            self.version = cubridge.__version__
            self.backend = cubridge.backend()
            self.gpu = self.backend == "cuda"
            self.ok = True
        except Exception as e:  # ImportError, or the library failing to start
            self.note = short_err(e)

    def make(self, n, dtype, value):
        return self.cb.full(n, value, dtype)

    def view(self, master, master_lib, n, dtype, value):
        if master_lib is self:
            return master
        # cubridge ops take CuPy/torch arrays zero-copy; Arrays are its native type.
        a = self.cb.full(n, value, dtype)
        self.view_kind[dtype] = "own copy"
        return a

    def fill(self, arr, value):
        self.cb.fill(arr, value)

    def to_numpy(self, arr):
        return arr.to_numpy()

    def sync(self):
        self.cb.synchronize()

    def calls(self, a, b, c):
        cb = self.cb
        return {
            "add": lambda: cb.add(a, b, out=c),
            "sub": lambda: cb.sub(a, b, out=c),
            "mul": lambda: cb.mul(a, b, out=c),
            "div": lambda: cb.div(a, b, out=c),
            "axpy": lambda: cb.axpy(ALPHA, a, c, out=c),
            "scale": lambda: cb.scale(a, ALPHA, out=c),
            "sum": lambda: cb.sum(a),
            "dot": lambda: cb.dot(a, b),
            "min": lambda: cb.min(a),
            "max": lambda: cb.max(a),
        }

    def second_gpu(self, n, dtype):
        cb = self.cb
        a, b, c = (cb.full(n, v, dtype, device=1) for v in (VAL_A, VAL_B, VAL_C))
        one = cb.zeros(1, dtype, device=1)
        # A blocking sum on device 1's default stream waits for the calls queued before it.
        calls = second_gpu_calls(lambda: cb.add(a, b, out=c), lambda: cb.add(a, b), lambda: cb.sum(a))
        return calls, lambda: cb.sum(one)

    def own_stream(self, n, dtype):
        cb = self.cb
        s = cb.Stream()
        a, b, c = (cb.full(n, v, dtype, stream=s) for v in (VAL_A, VAL_B, VAL_C))
        calls = stream_calls(lambda: cb.add(a, b, out=c, stream=s), lambda: cb.add(a, b, stream=s))
        return calls, s.synchronize, s.close

    def graph_of_adds(self, n, dtype, count):
        cb = self.cb
        a, c = self.make(n, dtype, VAL_A), self.make(n, dtype, 0)
        s = cb.Stream()
        with s.capture() as g:
            for _ in range(count):
                cb.add(c, a, out=c, stream=s)
        self._graph = (s, g)  # kept alive with the benchmark
        return g.launch  # on the default stream

    def extra_wall(self, A):
        cb, a, b, c = self.cb, A["a"], A["b"], A["c"]
        rows = {"add (new result array)": lambda: cb.add(a, b)}
        # Issue 15's foreign-array rows: cubridge called on torch tensors / CuPy arrays
        # (zero-copy views of the same memory), beside the peer's own call (foreign_rows).
        if self.gpu and isinstance(a, self.cb.Array):
            for peer in ("torch", "cupy"):
                try:
                    mod = __import__(peer)
                    fa, fb, fc = (mod.from_dlpack(x) for x in (a, b, c))
                except Exception as e:  # the peer is absent or cannot import ours
                    log(f"  wall cubridge on {peer} arrays: skipped ({short_err(e)})")
                    continue
                out_row, new_row, sum_row = foreign_rows(peer)
                rows[out_row] = lambda fa=fa, fb=fb, fc=fc: cb.add(fa, fb, out=fc)
                rows[new_row] = lambda fa=fa, fb=fb: cb.add(fa, fb)
                rows[sum_row] = lambda fa=fa: cb.sum(fa)
        return rows


class CupyLib(Lib):
    name = "cupy"

    def __init__(self):
        super().__init__()
        try:
            import cupy as cp

            self.cp = cp
            self.version = cp.__version__
            cp.cuda.runtime.getDeviceCount()
            _ = cp.arange(4).sum().item()  # the toolkit works, kernels compile
            self.ok = True
        except Exception as e:
            self.note = short_err(e)
            return
        self._axpy_kernel = None
        self._axpy_impl = None

    def make(self, n, dtype, value):
        return self.cp.full(n, value, dtype=dtype)

    def view(self, master, master_lib, n, dtype, value):
        cp = self.cp
        if master_lib is self:
            return master
        for how in ("from_dlpack", "asarray"):
            try:
                v = cp.from_dlpack(master) if how == "from_dlpack" else cp.asarray(master)
                if int(v.data.ptr) == _ptr_of(master):
                    self.view_kind[dtype] = f"zero-copy view ({how})"
                    return v
            except Exception:
                pass
        self.view_kind[dtype] = "own copy"
        return cp.full(n, value, dtype=dtype)

    def fill(self, arr, value):
        arr.fill(value)

    def to_numpy(self, arr):
        return self.cp.asnumpy(arr)

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def release_pools(self):
        try:
            self.cp.get_default_memory_pool().free_all_blocks()
            self.cp.get_default_pinned_memory_pool().free_all_blocks()
        except Exception:
            pass

    def _axpy(self, a, c):
        cp = self.cp
        if self._axpy_impl is None:
            self._axpy_impl = "ElementwiseKernel y = alpha*x + y"
            self._axpy_kernel = cp.ElementwiseKernel(
                "T x, T alpha", "T y", "y = alpha * x + y", "cubridge_bench_axpy"
            )
        k = self._axpy_kernel
        alpha = a.dtype.type(ALPHA)
        return lambda: k(a, alpha, c)

    def calls(self, a, b, c):
        cp = self.cp
        return {
            "add": lambda: cp.add(a, b, out=c),
            "sub": lambda: cp.subtract(a, b, out=c),
            "mul": lambda: cp.multiply(a, b, out=c),
            "div": lambda: cp.divide(a, b, out=c),
            "axpy": self._axpy(a, c),
            "scale": lambda: cp.multiply(a, ALPHA, out=c),
            "sum": a.sum,
            "dot": lambda: cp.dot(a, b),
            "min": a.min,
            "max": a.max,
        }

    def number(self, r):
        return float(r)

    def extra_wall(self, A):
        a, b = A["a"], A["b"]
        own = own_calls("cupy", self.kernel("add", A), lambda: a + b, self.wall("sum", A))
        return {"add (new result array)": lambda: a + b, **own}

    def second_gpu(self, n, dtype):
        cp = self.cp
        dev = cp.cuda.Device(1)
        with dev:
            a, b, c = (cp.full(n, v, dtype=dtype) for v in (VAL_A, VAL_B, VAL_C))
        # CuPy runs on the current device only: each call is made inside `with Device(1)`.

        def on1(f):
            def call():
                with dev:
                    return f()

            return call

        calls = second_gpu_calls(on1(lambda: cp.add(a, b, out=c)), on1(lambda: a + b), on1(lambda: float(a.sum())))
        return calls, dev.synchronize


    def own_stream(self, n, dtype):
        cp = self.cp
        s = cp.cuda.Stream(non_blocking=True)
        s.use()  # CuPy's ops run on its current stream
        a, b, c = (self.make(n, dtype, v) for v in (VAL_A, VAL_B, VAL_C))
        calls = stream_calls(lambda: cp.add(a, b, out=c), lambda: a + b)
        return calls, s.synchronize, cp.cuda.Stream.null.use

    def graph_of_adds(self, n, dtype, count):
        cp = self.cp
        a, c = self.make(n, dtype, VAL_A), self.make(n, dtype, 0)
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            cp.add(c, a, out=c)  # compiles the kernel before the capture
            s.synchronize()
            s.begin_capture()
            for _ in range(count):
                cp.add(c, a, out=c)
            g = s.end_capture()
        self._graph = (s, g)
        return g.launch  # on the current stream

class TorchLib(Lib):
    name = "torch"

    def __init__(self):
        super().__init__()
        try:
            import torch

            self.torch = torch
            self.version = torch.__version__
            if not torch.cuda.is_available():
                raise RuntimeError("torch.cuda.is_available() is False")
            torch.ones(4, device="cuda").sum().item()
            self.ok = True
        except Exception as e:
            self.note = short_err(e)

    def _dt(self, dtype):
        return getattr(self.torch, dtype)

    def make(self, n, dtype, value):
        return self.torch.full((n,), value, dtype=self._dt(dtype), device="cuda")

    def view(self, master, master_lib, n, dtype, value):
        torch = self.torch
        if master_lib is self:
            return master
        for how in ("from_dlpack", "as_tensor"):
            try:
                if how == "from_dlpack":
                    v = torch.from_dlpack(master)
                else:
                    v = torch.as_tensor(master, device="cuda")
                if v.data_ptr() == _ptr_of(master):
                    self.view_kind[dtype] = f"zero-copy view ({how})"
                    return v
            except Exception:
                pass
        self.view_kind[dtype] = "own copy"
        return self.make(n, dtype, value)

    def fill(self, arr, value):
        arr.fill_(value)

    def to_numpy(self, arr):
        return arr.cpu().numpy()

    def sync(self):
        self.torch.cuda.synchronize()

    def release_pools(self):
        try:
            self.torch.cuda.empty_cache()
        except Exception:
            pass

    def calls(self, a, b, c):
        torch = self.torch
        return {
            "add": lambda: torch.add(a, b, out=c),
            "sub": lambda: torch.sub(a, b, out=c),
            "mul": lambda: torch.mul(a, b, out=c),
            "div": lambda: torch.div(a, b, out=c),
            "axpy": lambda: c.add_(a, alpha=ALPHA),
            "scale": lambda: torch.mul(a, ALPHA, out=c),
            "sum": a.sum,
            "dot": lambda: torch.dot(a, b),
            "min": a.min,
            "max": a.max,
        }

    def number(self, r):
        return r.item()

    def extra_wall(self, A):
        a, b = A["a"], A["b"]
        own = own_calls("torch", self.kernel("add", A), lambda: a + b, self.wall("sum", A))
        return {"add (new result array)": lambda: a + b, **own}

    def second_gpu(self, n, dtype):
        torch = self.torch
        a, b, c = (torch.full((n,), v, dtype=self._dt(dtype), device="cuda:1") for v in (VAL_A, VAL_B, VAL_C))
        calls = second_gpu_calls(lambda: torch.add(a, b, out=c), lambda: a + b, lambda: a.sum().item())
        return calls, lambda: torch.cuda.synchronize(1)


    def own_stream(self, n, dtype):
        torch = self.torch
        s, before = torch.cuda.Stream(), torch.cuda.current_stream()
        torch.cuda.set_stream(s)  # torch's ops run on its current stream
        a, b, c = (self.make(n, dtype, v) for v in (VAL_A, VAL_B, VAL_C))
        calls = stream_calls(lambda: torch.add(a, b, out=c), lambda: a + b)
        return calls, s.synchronize, lambda: torch.cuda.set_stream(before)

    def graph_of_adds(self, n, dtype, count):
        torch = self.torch
        a, c = self.make(n, dtype, VAL_A), self.make(n, dtype, 0)
        side = torch.cuda.Stream()  # torch warms up on a side stream before capturing
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.add(c, a, out=c)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(count):
                torch.add(c, a, out=c)
        self._graph = g
        return g.replay  # on the current stream

class NumpyLib(Lib):
    name = "numpy"
    gpu = False

    def __init__(self):
        super().__init__()
        try:
            import numpy as np

            self.np = np
            self.version = np.__version__
            self.ok = True
        except Exception as e:
            self.note = short_err(e)
        self._tmp = None

    def make(self, n, dtype, value):
        return self.np.full(n, value, dtype=dtype)

    def view(self, master, master_lib, n, dtype, value):
        if master_lib is self:
            return master
        # On the CPU backend a cubridge.Array is host memory: view it.
        if getattr(master_lib, "name", "") == "cubridge" and not master_lib.gpu:
            try:
                v = self.np.asarray(master)
                if v.ctypes.data == _ptr_of(master):
                    self.view_kind[dtype] = "zero-copy view (__array_interface__)"
                    return v
            except Exception:
                pass
        self.view_kind[dtype] = "own copy (host memory)"
        return self.make(n, dtype, value)

    def fill(self, arr, value):
        arr.fill(value)

    def to_numpy(self, arr):
        return arr

    def calls(self, a, b, c):
        np = self.np
        tmp = np.empty_like(a)

        def axpy():
            np.multiply(a, ALPHA, out=tmp)
            np.add(c, tmp, out=c)

        return {
            "add": lambda: np.add(a, b, out=c),
            "sub": lambda: np.subtract(a, b, out=c),
            "mul": lambda: np.multiply(a, b, out=c),
            "div": lambda: np.divide(a, b, out=c),
            "axpy": axpy,
            "scale": lambda: np.multiply(a, ALPHA, out=c),
            "sum": lambda: float(a.sum()),
            "dot": lambda: float(np.dot(a, b)),
            "min": lambda: float(a.min()),
            "max": lambda: float(a.max()),
        }

    def extra_wall(self, A):
        a, b = A["a"], A["b"]
        return {"add (new result array)": lambda: a + b}


def foreign_rows(peer):
    """The labels of issue 15's foreign-array rows for `peer` ("torch", "cupy"): cubridge
    called on the peer's arrays; the peer's own call on its own arrays shares the label, so
    that both are timed in one round robin and stand in one row of the report."""
    return (f"add on {peer} arrays (out=)", f"add on {peer} arrays (new result)", f"sum of a {peer} array")


SECOND_GPU_ROWS = ("add on GPU 1 (out=)", "add on GPU 1 (new result)", "sum on GPU 1")


def second_gpu_calls(add_out, add_new, sum_float):
    """The second-GPU rows: arrays on device 1 while device 0 stays current."""
    return dict(zip(SECOND_GPU_ROWS, (add_out, add_new, sum_float)))


STREAM_ROWS = ("add on a stream of its own (out=)", "add on a stream of its own (new result)")


def current_stream_rows(peer):
    """The labels of the foreign-array rows while the peer's current stream is one it made
    (`with torch.cuda.stream(s)`, `with cupy.cuda.Stream()`): cubridge without stream= on the
    peer's arrays, beside the peer's own call there."""
    return (f"add on {peer} arrays, {peer}'s stream (out=)", f"add on {peer} arrays, {peer}'s stream (new result)")


def stream_calls(add_out, add_new):
    """The own-stream rows: each library's add on a stream it created, as its users queue work."""
    return dict(zip(STREAM_ROWS, (add_out, add_new)))


GRAPH_ADDS = 64
GRAPH_ROW = f"{GRAPH_ADDS} adds in a CUDA graph (one launch)"


class _Synced:
    """A library whose wall loops end with another sync (its device 1 work)."""

    def __init__(self, lib, sync):
        self.name, self.sync = lib.name, sync


def own_calls(peer, add_out, add_new, sum_float):
    """The peer's own calls under its foreign_rows labels."""
    return dict(zip(foreign_rows(peer), (add_out, add_new, sum_float)))


def _ptr_of(x) -> int:
    """Data pointer of a cubridge/CuPy/torch/NumPy array (-1 if unknown)."""
    for attr in ("ptr",):
        v = getattr(x, attr, None)
        if isinstance(v, int):
            return v
    if hasattr(x, "data_ptr"):
        return int(x.data_ptr())
    if hasattr(x, "data") and hasattr(x.data, "ptr"):
        return int(x.data.ptr)
    if hasattr(x, "ctypes"):
        return int(x.ctypes.data)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai:
        return int(cai["data"][0])
    return -1


# ---- timers ------------------------------------------------------------------


class WallTimer:
    """perf_counter around each call (plus a sync), for NumPy and the CPU backend.
    Calls under BATCH_BELOW_S are timed in batches of about BATCH_S, the mean of a batch
    being one sample: with a timer read per call, the reads and their jitter were a
    good part of a 1 us call (timeit does the same)."""

    name = "perf_counter per call (calls under 20 us: per batch of calls)"
    BATCH_BELOW_S = 20e-6
    BATCH_S = 200e-6

    def __init__(self, sync=None):
        self.sync = sync or (lambda: None)

    def measure(self, fn, reps, warmup):
        for _ in range(warmup):
            fn()
        self.sync()
        t0 = perf()
        fn()
        self.sync()
        one = perf() - t0
        batch = 1 if one >= self.BATCH_BELOW_S else int(min(1000, self.BATCH_S / max(one, 1e-7)))
        out = []
        for _ in range(reps):
            t0 = perf()
            for _ in range(batch):
                fn()
            self.sync()
            out.append((perf() - t0) * 1e3 / batch)
        return out


class EventTimer:
    """CUDA events on the legacy default stream (where cubridge's stream=None, CuPy's and
    torch's default streams all run). Before each call: a read-only busy kernel (a sum
    over 256 MiB), so the GPU is busy while Python enqueues start, op, end."""

    def __init__(self, kind, libs, cb=None):
        self.kind = kind
        self.cb = cb
        if kind == "cupy":
            cp = libs["cupy"].cp
            self.cp = cp
            self._scratch = cp.ones(BUSY_BYTES // 4, dtype="float32")
            self._out = cp.zeros((), dtype="float32")
            self.busy = lambda: cp.sum(self._scratch, out=self._out)
            self.new_event = lambda: cp.cuda.Event()
            self.record = lambda e: e.record()
            self.wait = lambda e: e.synchronize()
            self.elapsed = lambda s, e: cp.cuda.get_elapsed_time(s, e)
            self.device_sync = cp.cuda.runtime.deviceSynchronize
            self.name = "CUDA events (CuPy), legacy default stream, 256 MiB read-only busy kernel before each call"
        elif kind == "torch":
            torch = libs["torch"].torch
            self._scratch = torch.ones(BUSY_BYTES // 4, dtype=torch.float32, device="cuda")
            self.busy = lambda: self._scratch.sum()
            self.new_event = lambda: torch.cuda.Event(enable_timing=True)
            self.record = lambda e: e.record()
            self.wait = lambda e: e.synchronize()
            self.elapsed = lambda s, e: s.elapsed_time(e)
            self.device_sync = torch.cuda.synchronize
            self.name = "CUDA events (torch), legacy default stream, 256 MiB read-only busy kernel before each call"
        elif kind == "driver":
            d = _DriverEvents()
            self._d = d
            self._scratch = cb.empty(BUSY_BYTES // 4, "float32")
            self.busy = lambda: cb.fill(self._scratch, 1.0)  # writes: leaves L2 dirty
            self.new_event = d.create
            self.record = d.record
            self.wait = d.synchronize
            self.elapsed = d.elapsed
            self.device_sync = cb.synchronize
            self.name = "CUDA events (driver API via ctypes), legacy default stream, 256 MiB fill before each call"
        else:
            raise ValueError(kind)
        self._events = []
        self.device_sync()

    def _pairs(self, k):
        while len(self._events) < k:
            self._events.append((self.new_event(), self.new_event()))
        return self._events[:k]

    def measure(self, fn, reps, warmup):
        return self.measure_round_robin([fn], reps, warmup)[0]

    def measure_round_robin(self, fns, reps, warmup):
        """ms per call of each fn; the calls go round robin (one of each per round), so a
        drift of the GPU's clocks or of the host during the measurement touches every fn
        (every library) alike."""
        for fn in fns:
            for _ in range(warmup):
                fn()
        self.device_sync()
        pairs = self._pairs(reps * len(fns))
        for r in range(reps):
            for i, fn in enumerate(fns):
                s, e = pairs[r * len(fns) + i]
                self.busy()
                self.record(s)
                fn()
                self.record(e)
        self.wait(pairs[reps * len(fns) - 1][1])
        self.device_sync()
        times = [float(self.elapsed(s, e)) for s, e in pairs[: reps * len(fns)]]
        return [times[i :: len(fns)] for i in range(len(fns))]


class _DriverEvents:
    """Minimal CUDA driver-API events through ctypes (used when neither CuPy nor torch
    is there). Works on the primary context, the one cubridge's runtime uses."""

    def __init__(self):
        import ctypes

        self.ct = ctypes
        lib = ctypes.CDLL("libcuda.so.1")
        self.lib = lib

        def chk(rc, what):
            if rc != 0:
                raise RuntimeError(f"{what} failed with CUresult {rc}")

        self.chk = chk
        chk(lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        chk(lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        ctx = ctypes.c_void_p()
        chk(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        chk(lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self._elapsed = getattr(lib, "cuEventElapsedTime_v2", None) or lib.cuEventElapsedTime
        lib.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.cuEventSynchronize.argtypes = [ctypes.c_void_p]
        self._elapsed.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_void_p, ctypes.c_void_p]

    def create(self):
        e = self.ct.c_void_p()
        self.chk(self.lib.cuEventCreate(self.ct.byref(e), 0), "cuEventCreate")
        return e

    def record(self, e):
        self.chk(self.lib.cuEventRecord(e, None), "cuEventRecord")

    def synchronize(self, e):
        self.chk(self.lib.cuEventSynchronize(e), "cuEventSynchronize")

    def elapsed(self, s, e):
        ms = self.ct.c_float()
        self.chk(self._elapsed(self.ct.byref(ms), s, e), "cuEventElapsedTime")
        return ms.value


def wall_round_robin(calls, rounds, target_s=0.03, min_calls=1000, max_calls=200000):
    """Seconds per call of each (fn, sync) in `calls`: each is calibrated to loops of k calls
    (one sync at the end of each loop), then `rounds` loops of each run round robin, so that
    a drift of the host or the GPU touches every library alike. Returns (per, ks)."""
    ks = []
    for fn, sync in calls:
        for _ in range(20):
            fn()
        sync()
        t0 = perf()
        cal = 100
        for _ in range(cal):
            fn()
        sync()
        dt = max((perf() - t0) / cal, 1e-8)
        ks.append(int(min(max(min_calls, target_s / dt), max_calls)))
    per = [[] for _ in calls]
    for _ in range(rounds):
        for i, (fn, sync) in enumerate(calls):
            t0 = perf()
            for _ in range(ks[i]):
                fn()
            sync()
            per[i].append((perf() - t0) / ks[i])
    return per, ks


def wall_loop(fn, sync, rounds, **kw):
    """Seconds per call of one fn: `rounds` loops of k calls (see wall_round_robin)."""
    per, ks = wall_round_robin([(fn, sync)], rounds, **kw)
    return per[0], ks[0]


# ---- the benchmark -------------------------------------------------------------


class Bench:
    def __init__(self, args):
        self.args = args
        self.results = []
        self.notes = []
        self.t_start = perf()
        wanted = [s.strip() for s in args.libs.split(",") if s.strip()]
        bad = [s for s in wanted if s not in ALL_LIBS]
        if bad:
            raise SystemExit(f"--libs: unknown {bad}; choose from {ALL_LIBS}")
        classes = {"cubridge": CubridgeLib, "cupy": CupyLib, "torch": TorchLib, "numpy": NumpyLib}
        self.libs = {}
        self.skipped_libs = {}
        for name in wanted:
            log(f"loading {name} ...")
            lib = classes[name]()
            if lib.ok:
                self.libs[name] = lib
            else:
                self.skipped_libs[name] = lib.note
                log(f"  {name}: skipped ({lib.note})")
        self.ops = OPS + MORE_OPS if args.ops == "all" else [o.strip() for o in args.ops.split(",") if o.strip()]
        bad = [o for o in self.ops if o not in OPS + MORE_OPS]
        if bad:
            raise SystemExit(f"--ops: unknown {bad}; choose from {OPS + MORE_OPS} or all")
        self.cb = self.libs.get("cubridge")
        self.cpu_backend = self.cb is not None and not self.cb.gpu
        self.gpu_libs = [lib for lib in self.libs.values() if lib.gpu]
        self.timer = WallTimer()
        self.event_timer = None
        self.timer_note = WallTimer.name
        if self.gpu_libs:
            for kind in ("cupy", "torch", "driver"):
                if kind in ("cupy", "torch") and kind not in self.libs:
                    continue
                if kind == "driver" and self.cb is None:
                    continue
                try:
                    self.event_timer = EventTimer(kind, self.libs, cb=self.cb.cb if self.cb else None)
                    self.timer_note = self.event_timer.name
                    break
                except Exception as e:
                    self.notes.append(f"event timer via {kind} unavailable: {short_err(e)}")
            if self.event_timer is None:
                self.timer_note = "perf_counter per call with a device synchronize (no CUDA events available)"
                self.notes.append("no CUDA events: GPU kernel times are wall times with a sync")

    # -- helpers

    def gpu_free_bytes(self):
        try:
            if self.cb is not None and self.cb.gpu:
                return self.cb.cb.mem_info()[0]
            if "cupy" in self.libs:
                return self.libs["cupy"].cp.cuda.runtime.memGetInfo()[0]
            if "torch" in self.libs:
                return self.libs["torch"].torch.cuda.mem_get_info()[0]
        except Exception:
            pass
        return None

    def timer_for(self, lib):
        if lib.gpu:
            if self.event_timer is not None:
                return self.event_timer
            return WallTimer(sync=lib.sync)
        return WallTimer(sync=lib.sync)

    def add(self, **rec):
        self.results.append(rec)
        return rec

    def release_all(self):
        gc.collect()
        for lib in self.libs.values():
            try:
                lib.sync()
            except Exception:
                pass
            lib.release_pools()

    # -- device arrays, kernel and small-call wall times

    def run_device(self):
        args = self.args
        sizes = QUICK_SIZES if args.quick else SIZES
        if args.sizes:
            sizes = [int(float(s)) for s in args.sizes.split(",")]
        wall_sizes = QUICK_WALL_SIZES if args.quick else WALL_SIZES
        libs = list(self.libs.values())
        if not libs:
            return
        for dtype in DTYPES:
            isz = ITEMSIZE[dtype]
            for n in sizes:
                need = 3 * n * isz
                if need > args.max_gb * GiB:
                    self.skip_all("kernel", dtype, n, f"needs {need / GiB:.1f} GiB > --max-gb {args.max_gb}")
                    continue
                if self.gpu_libs:
                    free = self.gpu_free_bytes()
                    if free is not None and need + (1 * GiB) > free:
                        self.skip_all("kernel", dtype, n, f"needs {need / GiB:.1f} GiB + 1 GiB, {free / GiB:.1f} GiB free")
                        continue
                if not self.gpu_libs or self.cpu_backend:
                    avail = host_mem_available()
                    if avail is not None and 2 * need + GiB > avail:
                        self.skip_all("kernel", dtype, n, f"host memory: {avail / GiB:.1f} GiB available")
                        continue
                log(f"[{perf() - self.t_start:6.1f}s] {dtype} n={fmt_n(n)}")
                try:
                    self.run_size(dtype, n, wall=n in wall_sizes)
                except Exception as e:
                    self.notes.append(f"{dtype} n={fmt_n(n)}: {short_err(e)}")
                    log(traceback.format_exc())
                self.release_all()

    def run_second_gpu(self):
        """Small calls on arrays of device 1 while device 0 stays current (a second GPU,
        as users reach it); needs two GPUs."""
        if self.cb is None or not self.cb.gpu:
            return
        if len(self.cb.cb.devices()) < 2:
            self.notes.append("second-GPU rows: not measured (one GPU)")
            return
        n, dtype = 1000, "float32"
        log(f"[{perf() - self.t_start:6.1f}s] second GPU {dtype} n={fmt_n(n)}")
        groups = {}  # label -> [(lib, make_fn)]
        for lib in self.gpu_libs:
            try:
                calls, sync = lib.second_gpu(n, dtype)
            except Exception as e:
                self.notes.append(f"second-GPU rows, {lib.name}: {short_err(e)}")
                continue
            for label, fn in calls.items():
                groups.setdefault(label, []).append((_Synced(lib, sync), lambda fn=fn: fn))
        for label, items in groups.items():
            self.wall_group(dtype, n, label, items)
        self.release_all()

    def run_own_streams(self):
        """Small adds on a stream each library made (cubridge.Stream, torch.cuda.Stream, CuPy's
        Stream), its arrays made there, beside the default-stream rows."""
        if self.cb is None or not self.cb.gpu:
            return
        n, dtype = 1000, "float32"
        log(f"[{perf() - self.t_start:6.1f}s] own streams {dtype} n={fmt_n(n)}")
        for lib in self.gpu_libs:
            try:
                calls, sync, done = lib.own_stream(n, dtype)
            except Exception as e:
                self.notes.append(f"own-stream rows, {lib.name}: {short_err(e)}")
                continue
            try:  # one library at a time: torch and CuPy switch their current stream
                for label, fn in calls.items():
                    self.wall_group(dtype, n, label, [(_Synced(lib, sync), lambda fn=fn: fn)])
                if lib.name in ("torch", "cupy"):
                    self.run_on_peer_stream(lib, n, dtype, sync)
            finally:
                done()
        self.release_all()

    def run_on_peer_stream(self, lib, n, dtype, sync):
        """cubridge's add on the peer's arrays, no stream=, while the peer's own stream is
        current, round robin with the peer's own add there."""
        cb = self.cb.cb
        try:
            A = {k: lib.make(n, dtype, v) for k, v in (("a", VAL_A), ("b", VAL_B), ("c", VAL_C))}
        except Exception as e:
            self.notes.append(f"rows on {lib.name}'s stream: {short_err(e)}")
            return
        a, b, c = A["a"], A["b"], A["c"]
        ours = (lambda: cb.add(a, b, out=c), lambda: cb.add(a, b))
        theirs = (lib.kernel("add", A), lambda: a + b)
        for label, mine, peer in zip(current_stream_rows(lib.name), ours, theirs):
            items = [(_Synced(self.cb, sync), lambda f=mine: f), (_Synced(lib, sync), lambda f=peer: f)]
            self.wall_group(dtype, n, label, items)

    def run_graph(self):
        """GRAPH_ADDS small adds recorded once in each library's own CUDA graph (cubridge.Graph,
        torch.cuda.CUDAGraph, CuPy's Stream.begin_capture), replayed by one launch per call."""
        if self.cb is None or not self.cb.gpu:
            return
        n, dtype = 1000, "float32"
        log(f"[{perf() - self.t_start:6.1f}s] graphs {dtype} n={fmt_n(n)}")
        items = [(lib, lambda lib=lib: lib.graph_of_adds(n, dtype, GRAPH_ADDS)) for lib in self.gpu_libs]
        self.wall_group(dtype, n, GRAPH_ROW, items)
        self.release_all()

    def skip_all(self, kind, dtype, n, why):
        log(f"  skip {dtype} n={fmt_n(n)}: {why}")
        for lib in self.libs:
            for op in self.ops:
                self.add(kind=kind, op=op, dtype=dtype, n=n, lib=lib, skipped=why)

    def run_size(self, dtype, n, wall):
        args = self.args
        libs = list(self.libs.values())
        # Master arrays from the first GPU library (cubridge first), views for the rest.
        master_lib = self.gpu_libs[0] if self.gpu_libs else libs[0]
        master = {k: master_lib.make(n, dtype, v) for k, v in (("a", VAL_A), ("b", VAL_B), ("c", VAL_C))}
        arrays = {}
        for lib in libs:
            if lib.name == "numpy" and n > args.numpy_max_n and lib is not master_lib:
                arrays[lib.name] = None
                continue
            try:
                arrays[lib.name] = {
                    k: lib.view(master[k], master_lib, n, dtype, v)
                    for k, v in (("a", VAL_A), ("b", VAL_B), ("c", VAL_C))
                }
            except Exception as e:
                arrays[lib.name] = e
        for op in self.ops:
            cells = []
            for lib in libs:
                A = arrays[lib.name]
                base = dict(kind="kernel", op=op, dtype=dtype, n=n, lib=lib.name)
                if A is None:
                    self.add(**base, skipped=f"numpy limited to n <= {fmt_n(args.numpy_max_n)} (--numpy-max-n)")
                    continue
                if isinstance(A, Exception):
                    self.add(**base, error=f"arrays: {short_err(A)}")
                    continue
                cell = self.kernel_prepare(lib, op, dtype, n, A, base)
                if cell is not None:
                    cells.append(cell)
            self.kernel_measure(cells)
        if wall:
            usable = [lib for lib in libs if not (arrays[lib.name] is None or isinstance(arrays[lib.name], Exception))]
            for op in self.ops:
                items = [(lib, lambda lib=lib: lib.wall(op, arrays[lib.name])) for lib in usable]
                self.wall_group(dtype, n, op, items)
            if dtype == "float32" or not args.quick:
                extras = {}  # label -> [(lib, make_fn)], in library order
                for lib in usable:
                    for name, fn in lib.extra_wall(arrays[lib.name]).items():
                        extras.setdefault(name, []).append((lib, lambda fn=fn: fn))
                for name, items in extras.items():
                    self.wall_group(dtype, n, name, items)
        del arrays, master

    def verify(self, lib, op, dtype, n, A, fn):
        """Checks one call's result on small arrays (the output array is shared)."""
        if n > 10**6 or op == "axpy":
            return None
        np = __import__("numpy")
        if op not in REDUCTIONS:
            lib.fill(A["c"], -7.0)
            lib.sync()
            fn()
            lib.sync()
            got = np.asarray(lib.to_numpy(A["c"]))
            want = {"add": VAL_A + VAL_B, "sub": VAL_A - VAL_B, "mul": VAL_A * VAL_B, "div": VAL_A / VAL_B,
                    "scale": np.asarray(ALPHA, got.dtype) * np.asarray(VAL_A, got.dtype)}[op]
            if got.shape != (n,) or not np.all(got == want):
                return f"wrong result: expected all {want}, got {got[:4]}..."
        else:
            r = fn()
            try:
                v = float(r)
            except TypeError:
                v = float(r.item())
            want = {"sum": n * VAL_A, "dot": n * VAL_A * VAL_B, "min": VAL_A, "max": VAL_A}[op]
            if not math.isclose(v, want, rel_tol=1e-3):
                return f"wrong result: expected {want}, got {v}"
        return None

    def kernel_prepare(self, lib, op, dtype, n, A, base):
        """The call to time for one library and cell, checked once; None after recording an
        error."""
        args = self.args
        timer = self.timer_for(lib)
        # Reductions: every GPU library is timed delivering the result to the host as a
        # Python number (cubridge's reductions are blocking, so this is the only way to
        # compare like with like); CuPy's and torch's kernel-only time (result left on the
        # device) is kept in the record as device_scalar_median_ms.
        to_host = op in REDUCTIONS and lib.gpu
        try:
            fn = lib.wall(op, A) if to_host else lib.kernel(op, A)
            bad = self.verify(lib, op, dtype, n, A, lib.wall(op, A))
            if isinstance(timer, WallTimer):
                t0 = perf()
                fn()
                lib.sync()
                one = perf() - t0
                budget = 0.3 if args.quick else 1.5
                reps = int(max(args.min_wall_reps, min(args.reps, budget / max(one, 1e-7))))
                warmup = 1 if one > 0.05 else 3
            else:
                reps = args.reps if n < 10**8 else max(20, args.reps * 3 // 5)
                warmup = 3
        except Exception as e:
            self.kernel_error(base, e)
            return None
        return dict(lib=lib, op=op, dtype=dtype, n=n, A=A, base=base, timer=timer, fn=fn,
                    to_host=to_host, bad=bad, reps=reps, warmup=warmup)

    def kernel_measure(self, cells):
        """Times prepared cells and records them: the ones on the event timer round robin,
        the others (NumPy, the CPU backend) one after the other."""
        together = [c for c in cells if c["timer"] is self.event_timer]
        times = {}
        if together:
            try:
                ms = self.event_timer.measure_round_robin(
                    [c["fn"] for c in together], together[0]["reps"], together[0]["warmup"])
                times = {id(c): m for c, m in zip(together, ms)}
            except Exception as e:  # one library failed mid-way: time each on its own
                log(f"  round robin failed ({short_err(e)}); timing each library alone")
        for c in cells:
            try:
                ms = times.get(id(c)) or c["timer"].measure(c["fn"], c["reps"], c["warmup"])
                dev_ms = None
                if c["to_host"] and c["lib"].name != "cubridge":
                    dev_ms = c["timer"].measure(c["lib"].kernel(c["op"], c["A"]), c["reps"], c["warmup"])
            except Exception as e:
                self.kernel_error(c["base"], e)
                continue
            self.kernel_record(c, ms, dev_ms)

    def kernel_error(self, base, e):
        self.add(**base, error=short_err(e))
        log(f"  {base['lib']:8s} {base['op']:4s} {base['dtype']} n={fmt_n(base['n'])}: ERROR {short_err(e)}")

    def kernel_record(self, c, ms, dev_ms):
        lib, op, dtype, n, bad = c["lib"], c["op"], c["dtype"], c["n"], c["bad"]
        med, mn = statistics.median(ms), min(ms)
        nbytes = BYTES_PER_ELEM[op] * n * ITEMSIZE[dtype]
        rec = self.add(
            **c["base"],
            reps=len(ms),
            median_ms=med,
            min_ms=mn,
            mean_ms=statistics.fmean(ms),
            gbps=nbytes / (med * 1e-3) / 1e9 if med > 0 else None,
            gbps_best=nbytes / (mn * 1e-3) / 1e9 if mn > 0 else None,
            bytes=nbytes,
            timer="events" if c["timer"] is self.event_timer else "wall",
            arrays=lib.view_kind.get(dtype, "master arrays"),
        )
        if c["to_host"]:
            rec["note"] = "result delivered to the host as a Python number (included in the time)"
        if dev_ms:
            rec["device_scalar_median_ms"] = statistics.median(dev_ms)
        if lib.name == "cupy" and op == "axpy":
            rec["impl"] = lib._axpy_impl
        if lib.name == "numpy" and op == "axpy":
            rec["impl"] = "multiply into a temporary, then add (two passes)"
        if bad:
            rec["verify"] = bad
        log(f"  {lib.name:8s} {op:4s} {dtype} n={fmt_n(n):5s} {med * 1e3:10.1f} us  {rec['gbps']:8.1f} GB/s" + (f"  VERIFY: {bad}" if bad else ""))

    def wall_group(self, dtype, n, label, items):
        """Wall time per call of `label` for each (lib, make_fn) in `items`, the libraries
        round robin; a library whose call fails gets an error record."""
        ok = []
        for lib, make_fn in items:
            try:
                fn = make_fn()
                fn()
                lib.sync()
                ok.append((lib, fn))
            except Exception as e:
                self.wall_error(lib, label, dtype, n, e)
        if not ok:
            return
        try:
            per, ks = wall_round_robin([(fn, lib.sync) for lib, fn in ok], rounds=3 if self.args.quick else 5)
        except Exception as e:
            for lib, _ in ok:
                self.wall_error(lib, label, dtype, n, e)
            return
        for (lib, _), p, k in zip(ok, per, ks):
            rec = self.add(kind="wall", op=label, dtype=dtype, n=n, lib=lib.name, calls_per_round=k,
                           rounds=len(p), median_us=statistics.median(p) * 1e6, min_us=min(p) * 1e6)
            log(f"  wall {lib.name:8s} {label:24s} {dtype} n={fmt_n(n):5s} {rec['median_us']:8.2f} us/call")

    def wall_error(self, lib, label, dtype, n, e):
        self.add(kind="wall", op=label, dtype=dtype, n=n, lib=lib.name, error=short_err(e))
        log(f"  wall {lib.name} {label} {dtype} n={fmt_n(n)}: ERROR {short_err(e)}")

    # -- host arrays in and out

    def run_host(self):
        args = self.args
        sizes = QUICK_HOST_SIZES if args.quick else HOST_SIZES
        if "numpy" not in self.libs and not self.libs:
            return
        try:
            import numpy as np
        except ImportError:
            self.notes.append("host-array path skipped: NumPy is not installed")
            return
        dtype = "float32"
        for n in sizes:
            need = 6 * n * 4
            avail = host_mem_available()
            if avail is not None and need + GiB > avail:
                for lib in self.libs:
                    self.add(kind="host", op="add", dtype=dtype, n=n, lib=lib, skipped=f"host memory: {avail / GiB:.1f} GiB available")
                continue
            log(f"[{perf() - self.t_start:6.1f}s] host arrays float32 add n={fmt_n(n)}")
            a = np.full(n, VAL_A, dtype=dtype)
            b = np.full(n, VAL_B, dtype=dtype)
            o = np.zeros(n, dtype=dtype)
            for lib in self.libs.values():
                try:
                    calls = self.host_fns(lib, a, b, o)
                except Exception as e:
                    self.add(kind="host", op="add", dtype=dtype, n=n, lib=lib.name, error=short_err(e))
                    continue
                for op, fn, impl in calls:
                    self.time_host(args, np, base=dict(kind="host", op=op, dtype=dtype, n=n, lib=lib.name),
                                   fn=fn, impl=impl, o=o, n=n)
            del a, b, o
            self.release_all()

    def time_host(self, args, np, base, fn, impl, o, n):
        try:
            o.fill(0)
            r = fn()
            got = r if r is not None else o
            ok = bool(np.all(np.asarray(got)[:: max(1, n // 1000)] == VAL_A + VAL_B))
            del r, got
            if n < 10**5:
                per, k = wall_loop(fn, lambda: None, rounds=3 if args.quick else 5, min_calls=300)
                ms = [p * 1e3 for p in per]
                how = f"{len(per)} loops of {k} calls"
            else:
                t0 = perf()
                fn()
                one = perf() - t0
                reps = int(max(5, min(args.reps, (0.5 if args.quick else 2.0) / max(one, 1e-6))))
                ms = []
                for _ in range(reps):
                    t0 = perf()
                    fn()
                    ms.append((perf() - t0) * 1e3)
                how = f"{reps} calls"
        except Exception as e:
            self.add(**base, error=short_err(e))
            log(f"  {base['lib']}: ERROR {short_err(e)}")
            return
        med = statistics.median(ms)
        rec = self.add(**base, impl=impl, median_ms=med, min_ms=min(ms), how=how, host_gbps=3 * n * 4 / (med * 1e-3) / 1e9)
        if not ok:
            rec["verify"] = "wrong result"
        log(f"  {base['lib']:8s} {med:10.3f} ms  ({impl})")

    def host_fns(self, lib, a, b, o):
        """(op, fn, impl) for each host-array call measured: "add" returns a new
        host array, as users write it (its page faults included); "add_out"
        writes into a preallocated one, where a library takes out=."""
        if lib.name == "cubridge":
            cb = lib.cb
            return [("add", lambda: cb.add(a, b), "cubridge.add(a, b)"),
                    ("add_out", lambda: cb.add(a, b, out=o), "cubridge.add(a, b, out=o)")]
        if lib.name == "numpy":
            np = lib.np
            return [("add", lambda: np.add(a, b), "numpy.add(a, b)"),
                    ("add_out", lambda: np.add(a, b, out=o), "numpy.add(a, b, out=o)")]
        if lib.name == "cupy":
            cp = lib.cp
            return [("add", lambda: cp.asnumpy(cp.add(cp.asarray(a), cp.asarray(b))),
                     "cupy.asnumpy(cupy.add(cupy.asarray(a), cupy.asarray(b)))")]
        if lib.name == "torch":
            torch = lib.torch
            return [("add", lambda: (torch.from_numpy(a).to("cuda") + torch.from_numpy(b).to("cuda")).cpu().numpy(),
                     "(torch.from_numpy(a).cuda() + torch.from_numpy(b).cuda()).cpu().numpy()")]
        raise KeyError(lib.name)

    # -- metadata, targets, output

    def meta(self):
        m = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpu": cpu_model(),
            "cpu_count": os.cpu_count(),
            "args": vars(self.args),
            "libs": {n: l.version for n, l in self.libs.items()},
            "libs_skipped": self.skipped_libs,
            "timer": self.timer_note,
            "device": None,
        }
        if self.cb is not None:
            cb = self.cb.cb
            m["cubridge_backend"] = self.cb.backend
            try:
                devs = cb.devices()
                if devs:
                    m["device"] = devs[0].name
            except Exception:
                pass
        if "cupy" in self.libs:
            cp = self.libs["cupy"].cp
            try:
                m["cuda_runtime_cupy"] = cp.cuda.runtime.runtimeGetVersion()
                m["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
                if m["device"] is None:
                    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
                    m["device"] = name.decode() if isinstance(name, bytes) else str(name)
            except Exception:
                pass
        if "torch" in self.libs:
            torch = self.libs["torch"].torch
            m["cuda_torch"] = torch.version.cuda
            if m["device"] is None:
                try:
                    m["device"] = torch.cuda.get_device_name(0)
                except Exception:
                    pass
        if m["device"] is None:
            m["device"] = f"CPU: {m['cpu']} ({os.cpu_count()} threads)"
        return m

    def find(self, kind, op, dtype, n, lib):
        for r in self.results:
            if (r["kind"], r["op"], r["dtype"], r["n"], r["lib"]) == (kind, op, dtype, n, lib):
                return r
        return None

    def targets(self):
        T = []

        def line(name, value, goal, unit, higher_better, why_missing=None):
            if value is None:
                T.append(dict(target=name, goal=goal, unit=unit, status="not measured", detail=why_missing or ""))
                return
            met = value >= goal if higher_better else value <= goal
            if met:
                detail = f"{value:.4g} {unit}"
            else:
                gap = (goal - value) if higher_better else (value - goal)
                detail = f"{value:.4g} {unit}: missed by {gap:.3g} {unit} ({gap / goal * 100:.1f}%)"
            T.append(dict(target=name, goal=goal, unit=unit, value=value, status="met" if met else "missed", detail=detail))

        def val(kind, op, dtype, n, lib, key):
            r = self.find(kind, op, dtype, n, lib)
            if r is None:
                return None, "no measurement"
            if key not in r:
                return None, r.get("skipped") or r.get("error") or "no value"
            return r[key], None

        if self.cpu_backend:
            for op, how in (("add_out", "out="), ("add", "new result")):
                v, why = val("host", op, "float32", 10**7, "cubridge", "median_ms")
                w, why2 = val("host", op, "float32", 10**7, "numpy", "median_ms")
                speed = (w / v) if (v and w) else None
                line(f"CPU backend: float32 add n=1e7 (host arrays, {how}) >= 1.5x NumPy's speed", speed, 1.5, "x", True, why or why2)
            v, why = val("kernel", "add", "float32", 10**7, "cubridge", "median_ms")
            w, why2 = val("kernel", "add", "float32", 10**7, "numpy", "median_ms")
            speed = (w / v) if (v and w) else None
            line("CPU backend: float32 add n=1e7 (cubridge.Array) >= 1.5x NumPy's speed", speed, 1.5, "x", True, why or why2)
            # Issue 15, item 5: every op at every size at most NumPy's time per call.
            cells, slower = 0, []
            for op in self.ops:
                for dtype in DTYPES:
                    for n in sorted({r["n"] for r in self.results if r["kind"] == "kernel" and r["op"] == op and r["dtype"] == dtype}):
                        v, _ = val("kernel", op, dtype, n, "cubridge", "median_ms")
                        w, _ = val("kernel", op, dtype, n, "numpy", "median_ms")
                        if v and w:
                            cells += 1
                            if v > w:
                                slower.append((v / w, f"{op} {dtype} {fmt_n(n)}"))
            name = f"CPU backend: {', '.join(self.ops)} at every size <= NumPy's time per call"
            if cells == 0:
                T.append(dict(target=name, status="not measured", detail="no cubridge/NumPy pair"))
            else:
                worst = ", ".join(f"{cell} {ratio:.2f}x" for ratio, cell in sorted(slower, reverse=True))
                T.append(dict(target=name, status="missed" if slower else "met",
                              detail=f"{cells - len(slower)} of {cells} cells" + (f"; slower: {worst}" if slower else "")))
            return T

        for op in ("add", "axpy"):
            for dtype in DTYPES:
                v, why = val("kernel", op, dtype, 4 * 10**8, "cubridge", "gbps")
                line(f"{op} {dtype} n=4e8 >= 3050 GB/s", v, 3050.0, "GB/s", True, why)
        for op in ("sum", "dot"):
            for dtype in DTYPES:
                v, why = val("kernel", op, dtype, 4 * 10**8, "cubridge", "gbps")
                line(f"{op} {dtype} n=4e8 >= 3090 GB/s", v, 3090.0, "GB/s", True, why)
        for n in (10**6, 10**7):
            for op in OPS:
                for dtype in DTYPES:
                    v, why = val("kernel", op, dtype, n, "cubridge", "gbps")
                    peers = []
                    for p in ("cupy", "torch"):
                        pv, _ = val("kernel", op, dtype, n, p, "gbps")
                        if pv is not None:
                            peers.append((pv, p))
                    name = f"{op} {dtype} n={fmt_n(n)} >= max(CuPy, torch)"
                    if not peers:
                        T.append(dict(target=name, status="not measured", detail="no CuPy/torch measurement"))
                        continue
                    best, who = max(peers)
                    line(f"{name} [{who} {best:.0f} GB/s]", v, best, "GB/s", True, why)
        for dtype in DTYPES:
            v, why = val("wall", "add", dtype, 10**3, "cubridge", "median_us")
            line(f"small async add {dtype} n=1000 <= 4 us wall per call", v, 4.0, "us", False, why)
        for dtype in DTYPES:
            v, why = val("wall", "sum", dtype, 10**3, "cubridge", "median_us")
            line(f"small sum {dtype} n=1000 returning a Python float <= 12 us", v, 12.0, "us", False, why)
        for peer in ("torch", "cupy"):
            if peer not in self.libs:
                continue
            for label in foreign_rows(peer):
                for dtype in DTYPES:
                    v, why = val("wall", label, dtype, 10**3, "cubridge", "median_us")
                    w, why2 = val("wall", label, dtype, 10**3, peer, "median_us")
                    ratio = v / w if (v and w) else None
                    line(f"{label} {dtype} n=1000 <= 1.1x {peer}'s own call", ratio, 1.1, "x", False, why or why2)
            for label in current_stream_rows(peer):
                v, why = val("wall", label, "float32", 10**3, "cubridge", "median_us")
                w, why2 = val("wall", label, "float32", 10**3, peer, "median_us")
                ratio = v / w if (v and w) else None
                line(f"{label} float32 n=1000 <= 1.1x {peer}'s own call", ratio, 1.1, "x", False, why or why2)
        def vs_better_peer(label, what):
            v, why = val("wall", label, "float32", 10**3, "cubridge", "median_us")
            if v is None and why == "no measurement":
                return  # not measured here (one GPU, the CPU backend)
            peers = [(w, p) for p in ("cupy", "torch") for w in [val("wall", label, "float32", 10**3, p, "median_us")[0]] if w]
            best, who = min(peers) if peers else (None, "")
            ratio = v / best if (v and best) else None
            line(f"{label} float32 n=1000 <= {what} [{who}]", ratio, 1.0, "x", False, why or "no peer measured")

        for label in SECOND_GPU_ROWS:
            vs_better_peer(label, "the better peer's call")
        for label in STREAM_ROWS:
            vs_better_peer(label, "the better peer's call")
        vs_better_peer(GRAPH_ROW, "the better peer's graph")
        v, why = val("host", "add", "float32", 10**8, "cubridge", "median_ms")
        line("host arrays float32 add n=1e8, new result, <= 90 ms", v, 90.0, "ms", False, why)
        return T

    def report(self):
        libs = [l for l in ALL_LIBS if l in self.libs]
        out = []
        p = out.append
        p("")
        p(f"cubridge benchmark  {self.meta_cache['date']}  device: {self.meta_cache['device']}")
        p("libraries: " + ", ".join(f"{k} {v}" for k, v in self.meta_cache["libs"].items()))
        for k, v in self.skipped_libs.items():
            p(f"  skipped {k}: {v}")
        p(f"timer: {self.timer_note}")
        p("")
        p("== kernel time on device arrays: effective GB/s (median), time per call in us (median)")
        hdr = f"{'op':5s} {'dtype':8s} {'n':>5s} " + " ".join(f"{l:>22s}" for l in libs)
        if "cubridge" in libs and len(libs) > 1:
            hdr += f" {'cb/best-peer':>13s}"
        p(hdr)
        for dtype in DTYPES:
            for op in self.ops:
                ns = sorted({r["n"] for r in self.results if r["kind"] == "kernel" and r["op"] == op and r["dtype"] == dtype})
                for n in ns:
                    cells = []
                    peers = []
                    cbv = None
                    for l in libs:
                        r = self.find("kernel", op, dtype, n, l)
                        if r is None:
                            cells.append(f"{'-':>22s}")
                        elif "gbps" in r:
                            flag = "!" if "verify" in r else ""
                            cells.append(f"{r['gbps']:9.1f} {r['median_ms'] * 1e3:10.1f}us{flag}")
                            if l == "cubridge":
                                cbv = r["gbps"]
                            elif l in ("cupy", "torch"):
                                peers.append(r["gbps"])
                        elif "error" in r:
                            cells.append(f"{'error':>22s}")
                        else:
                            cells.append(f"{'skipped':>22s}")
                    line = f"{op:5s} {dtype:8s} {fmt_n(n):>5s} " + " ".join(cells)
                    if "cubridge" in libs and len(libs) > 1:
                        if not peers and "numpy" in libs:
                            r = self.find("kernel", op, dtype, n, "numpy")
                            if r and "gbps" in r:
                                peers.append(r["gbps"])
                        line += f" {cbv / max(peers):12.2f}x" if (cbv and peers) else f" {'':>13s}"
                    p(line)
        walls = [r for r in self.results if r["kind"] == "wall"]
        if walls:
            p("")
            p("== wall time per call, small arrays (us, median of loops; sum/dot include the result as a Python number)")
            p(f"{'op':24s} {'dtype':8s} {'n':>5s} " + " ".join(f"{l:>12s}" for l in libs))
            keys = []
            for r in walls:
                k = (r["op"], r["dtype"], r["n"])
                if k not in keys:
                    keys.append(k)
            for op, dtype, n in keys:
                cells = []
                for l in libs:
                    r = self.find("wall", op, dtype, n, l)
                    cells.append(f"{r['median_us']:12.2f}" if r and "median_us" in r else f"{'-' if r is None else 'error':>12s}")
                p(f"{op:24s} {dtype:8s} {fmt_n(n):>5s} " + " ".join(cells))
        hosts = [r for r in self.results if r["kind"] == "host"]
        if hosts:
            p("")
            for op, title in (("add", "host arrays in, a new host array out"),
                              ("add_out", "host arrays in, out= a host array (libraries that take out=)")):
                p(f"== {title}, float32 add (ms per call, median; min in bench.json)")
                p(f"{'n':>5s} " + " ".join(f"{l:>12s}" for l in libs))
                for n in sorted({r["n"] for r in hosts}):
                    cells = []
                    for l in libs:
                        r = self.find("host", op, "float32", n, l)
                        if r and "median_ms" in r:
                            cells.append(f"{r['median_ms']:11.3f}{'!' if 'verify' in r else ' '}")
                        else:
                            cells.append(f"{'-' if r is None else ('error' if 'error' in r else 'skipped'):>12s}")
                    p(f"{fmt_n(n):>5s} " + " ".join(cells))
                p("")
        errs = [r for r in self.results if "error" in r or "verify" in r]
        if errs:
            p("")
            p("== errors and failed checks")
            for r in errs:
                p(f"  {r['kind']} {r['lib']} {r['op']} {r['dtype']} n={fmt_n(r['n'])}: {r.get('error') or r.get('verify')}")
        p("")
        p("== targets")
        for t in self.targets_cache:
            p(f"  [{t['status']:^12s}] {t['target']}: {t.get('detail', '')}")
        for note in self.notes:
            p(f"note: {note}")
        p(f"total time {perf() - self.t_start:.1f} s")
        return "\n".join(out)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="directory for bench.json")
    ap.add_argument("--quick", action="store_true", help="few sizes, fewer repetitions (smoke run)")
    ap.add_argument("--libs", default=",".join(ALL_LIBS), help="comma-separated subset of " + ",".join(ALL_LIBS))
    ap.add_argument("--sizes", help="override the device sizes, e.g. 1e6,1e7")
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated ops, or all: " + ",".join(OPS + MORE_OPS))
    ap.add_argument("--reps", type=int, default=50, help="timed calls per kernel measurement (>= 20 on the GPU)")
    ap.add_argument("--min-wall-reps", type=int, default=5, help="fewest timed calls for CPU-side (wall) measurements")
    ap.add_argument("--numpy-max-n", type=float, default=1e8, help="largest n NumPy runs in the device table")
    ap.add_argument("--max-gb", type=float, default=36.0, help="skip sizes whose arrays need more than this")
    ap.add_argument("--skip-host", action="store_true", help="skip the host-array section")
    args = ap.parse_args(argv)
    args.reps = max(args.reps, 20)
    args.numpy_max_n = int(args.numpy_max_n)

    bench = Bench(args)
    try:
        bench.run_device()
        bench.run_second_gpu()
        bench.run_graph()
        bench.run_own_streams()
        if not args.skip_host:
            bench.run_host()
    except KeyboardInterrupt:
        bench.notes.append("interrupted: partial results")
    except Exception as e:
        bench.notes.append(f"aborted: {short_err(e)}")
        log(traceback.format_exc())
    finally:
        bench.meta_cache = bench.meta()
        bench.targets_cache = bench.targets()
        print(bench.report(), flush=True)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, "bench.json")
            doc = {
                "meta": bench.meta_cache,
                "measurements": bench.results,
                "targets": bench.targets_cache,
                "notes": bench.notes,
                "units": {
                    "median_ms": "milliseconds per call",
                    "gbps": "effective GB/s (1e9 bytes/s): add/sub/mul/div/axpy 3*n*itemsize, scale 2*n*itemsize, sum/min/max n*itemsize, dot 2*n*itemsize",
                    "median_us": "microseconds per call (wall)",
                },
            }
            with open(path, "w") as f:
                json.dump(doc, f, indent=1, default=str)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
