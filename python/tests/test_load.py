"""Load: many threads (the GIL is released in the kernels) on shared and separate
streams for a bounded time; every result checked, no deadlock, memory flat.

CUBRIDGE_LOAD_SECONDS (default 2) and CUBRIDGE_LOAD_THREADS (default 16) scale it.
"""

from __future__ import annotations

import gc
import os
import threading
import time

import numpy as np

import cubridge

SECONDS = float(os.environ.get("CUBRIDGE_LOAD_SECONDS", "2"))
THREADS = int(os.environ.get("CUBRIDGE_LOAD_THREADS", "16"))


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def device_used() -> int:
    if cubridge.backend() != "cuda":
        return 0
    free, total = cubridge.mem_info()
    return total - free


def stream_for(i: int, own: dict[int, object]) -> object:
    """Half the threads on the default stream, half on a stream of their own
    (CuPy's, when CuPy is there, else the default stream)."""
    if i % 2 == 0 or cubridge.backend() != "cuda":
        return None
    try:
        import cupy  # type: ignore[import-not-found]
    except ImportError:
        return None
    return own.setdefault(i, cupy.cuda.Stream(non_blocking=True))


def worker(
    i: int,
    deadline: float,
    shared: object,
    shared_sum: float,
    errors: list,
    counts: list,
) -> None:
    own: dict[int, object] = {}
    rng = np.random.default_rng(i)
    rounds = 0
    try:
        while time.monotonic() < deadline:
            n = int(rng.integers(1, 20000))
            a = rng.integers(-1000, 1000, n).astype(np.float32)
            s = stream_for(i, own)
            d = cubridge.asarray(a, stream=s)
            cubridge.scale(d, 2.0, out=d, stream=s)
            cubridge.add(d, d, out=d, stream=s)  # 4a
            cubridge.synchronize(s)
            np.testing.assert_array_equal(d.to_numpy(), 4 * a)
            np.testing.assert_array_equal(cubridge.mul(a, a), a * a)
            assert cubridge.sum(shared, stream=s) == shared_sum
            try:  # a failing call in the mix changes nothing
                cubridge.add(a, a[:-1] if n > 1 else a.astype(np.float64))
                raise AssertionError("a bad call was accepted")
            except (ValueError, TypeError):
                pass
            rounds += 1
    except BaseException as e:  # noqa: BLE001 (reported by the test)
        errors.append(e)
    counts[i] = rounds


def run(seconds: float, shared: object, shared_sum: float) -> int:
    errors: list[BaseException] = []
    counts = [0] * THREADS
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=worker,
            args=(i, deadline, shared, shared_sum, errors, counts),
            daemon=True,
        )
        for i in range(THREADS)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=seconds + 60)
        assert (
            not t.is_alive()
        ), "deadlock: a thread is still running a minute after the deadline"
    assert not errors, errors[:3]
    return sum(counts)


def test_threads_under_load_memory_flat() -> None:
    data = np.arange(1 << 14, dtype=np.float64)
    shared = cubridge.asarray(data)
    shared_sum = float(data.sum())
    run(0.3, shared, shared_sum)  # warm-up: pools and thread caches
    gc.collect()
    rss0, dev0 = rss(), device_used()
    rounds = run(SECONDS, shared, shared_sum)
    gc.collect()
    cubridge.synchronize()
    rss1, dev1 = rss(), device_used()
    print(
        f"load: {THREADS} threads, {rounds} rounds in {SECONDS}s; RSS {rss0 >> 10} -> {rss1 >> 10} KiB"
    )
    assert rounds > 0
    assert rss1 - rss0 < 64 << 20, f"RSS grew by {(rss1 - rss0) >> 10} KiB"
    if cubridge.backend() == "cuda":
        assert dev1 - dev0 <= 8 << 20, f"device memory grew by {dev1 - dev0} bytes"


def test_alloc_free_rounds_memory_flat() -> None:
    """A thousand alloc/op/free rounds in this process: RSS (CPU backend) or
    device memory in use (GPU backend) no higher than where it started."""

    def rounds(k: int) -> None:
        for r in range(k):
            n = 1 + (r * 977) % 65536
            memory = ("device", "managed", "pinned")[r % 3]
            a = cubridge.full(n, 1.5, "float64", memory=memory)
            b = cubridge.full(n, 2.0, "float64", memory=memory)
            cubridge.axpy(2.0, a, b, out=b)
            assert cubridge.sum(b) == 5.0 * n
            del a, b
            try:
                cubridge.empty(2**58, "float64", memory="device")
            except cubridge.OutOfMemoryError:
                pass

    rounds(50)
    gc.collect()
    rss0, dev0 = rss(), device_used()
    rounds(1000)
    gc.collect()
    cubridge.synchronize()
    rss1, dev1 = rss(), device_used()
    print(f"1000 rounds: RSS {rss0 >> 10} -> {rss1 >> 10} KiB, device {dev0} -> {dev1}")
    assert rss1 - rss0 < 32 << 20
    if cubridge.backend() == "cuda":
        # Growth is a leak; less in use than at the start means memory from
        # before the rounds was handed back (seen on the H100: -27 MB).
        assert dev1 <= dev0, f"device memory in use grew by {dev1 - dev0:+d} bytes"
