#!/usr/bin/env python3
"""Device-memory drift on the GPU host: device memory in use (cudaMemGetInfo through
cubridge.mem_info()) must return to its starting value after ROUNDS alloc/op/free
rounds of each pattern; or, when it grew, the growth must be memory the library keeps for
later (memory_stats() shows it: reserved_bytes beyond in_use_bytes) and empty_cache() must
hand it back (device memory in use then at most the starting value). Usage (the wheel
installed or on PYTHONPATH):

    python3 tests/gpu/memory_drift.py [--rounds 1000] [--json OUT.json]

Prints one line per pattern and exits 1 if device memory in use grew for any. The Go side is
TestSoak in the Go test binary (tests/gpu/reliability.sh runs both).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys

import numpy as np

import cubridge


def used() -> int:
    cubridge.synchronize()
    free, total = cubridge.mem_info()
    return total - free


def held() -> int:
    """Device memory the library holds beyond its users' arrays (caches, staging)."""
    s = cubridge.memory_stats()
    return s["reserved_bytes"] - s["in_use_bytes"]


# The pool reserves memory in 2 MiB pieces; cudaMemGetInfo sees those.
GRANULE = 2 << 20


def pattern_arrays(r: int) -> None:
    n = 1 + (r * 977) % (1 << 20)
    memory = ("device", "managed", "pinned")[r % 3]
    a = cubridge.full(n, 1.5, "float32", memory=memory)
    b = cubridge.zeros(n, "float32", memory=memory)
    cubridge.axpy(2.0, a, b, out=b)
    assert cubridge.sum(b) == 3.0 * n
    assert cubridge.max(cubridge.astype(b, "float64")) == 3.0


def pattern_host_pipeline(r: int) -> None:
    # > 1 MiB host arrays: the pipelined path (pinned staging, internal streams).
    n = (1 << 19) + (r * 4099) % (1 << 20)
    a = np.full(n, 2.0, np.float32)
    out = cubridge.mul(a, a)
    assert out[0] == 4.0 and out[-1] == 4.0


def pattern_errors(r: int) -> None:
    try:
        cubridge.empty(2**58, "float64")
    except cubridge.OutOfMemoryError:
        pass
    try:
        cubridge.add(cubridge.empty(8), cubridge.empty(7))
    except ValueError:
        pass


def pattern_interop(r: int) -> None:
    try:
        import cupy  # type: ignore[import-not-found]
    except ImportError:
        return
    x = cupy.arange(1 + r % 5000, dtype=cupy.float32)
    y = cubridge.add(x, x)
    z = cupy.from_dlpack(y)
    assert float(z.sum()) == float(2 * x.sum())
    del x, y, z
    cupy.get_default_memory_pool().free_all_blocks()


PATTERNS = {
    "arrays": pattern_arrays,
    "host_pipeline": pattern_host_pipeline,
    "errors": pattern_errors,
    "interop": pattern_interop,
}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=1000)
    p.add_argument("--json")
    args = p.parse_args()
    if cubridge.backend() != "cuda":
        print(
            "memory_drift: not on the CUDA backend; nothing to measure", file=sys.stderr
        )
        return 2
    results = {}
    bad = 0
    for name, fn in PATTERNS.items():
        # Warm-up over the rounds' whole range of sizes: caches (staging buffers, CUB
        # temp, size classes) reach their steady size before the measurement.
        for r in range(0, args.rounds, max(1, args.rounds // 40)):
            fn(r)
        gc.collect()
        start, held_start = used(), held()
        for r in range(args.rounds):
            fn(r)
        gc.collect()
        end, held_end = used(), held()
        drift = end - start
        # Growth passes only as a cache: shown by memory_stats(), returned by empty_cache().
        emptied = None
        if drift > 0:
            cubridge.empty_cache()
            emptied = used()
        ok = drift <= 0 or (
            drift <= held_end - held_start + GRANULE
            and emptied is not None
            and emptied <= start
        )
        results[name] = {
            "rounds": args.rounds,
            "start": start,
            "end": end,
            "drift": drift,
            "held_growth": held_end - held_start,
            "after_empty_cache": emptied,
            "ok": ok,
        }
        extra = (
            ""
            if emptied is None
            else f"; memory_stats held {held_end - held_start:+d}, after empty_cache "
            f"{emptied - start:+d} from start"
        )
        print(
            f"DRIFT python {name}: start {start} end {end} drift {drift:+d} bytes{extra}: "
            + ("ok" if ok else "GROWTH")
        )
        bad += not ok
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
