#!/usr/bin/env python3
"""Device-memory drift on the GPU host: device memory in use (cudaMemGetInfo through
cubridge.mem_info()) must return to its starting value after ROUNDS alloc/op/free
rounds of each pattern; or, when it grew, the growth must be memory the library keeps for
later (memory_stats() shows it: reserved_bytes beyond in_use_bytes) and empty_cache() must
hand it back (device memory in use then at most the starting value). For managed arrays
alone, failing that, with every array of the library freed again, up to two more windows of
ROUNDS must not grow it past the first window's end (the driver's figure moves with managed
memory's residency; a leak grows in every window). Usage (the wheel
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


def in_use() -> int:
    """Bytes of the library's users' arrays still allocated."""
    return cubridge.memory_stats()["in_use_bytes"]


# The pool reserves memory in 2 MiB pieces; cudaMemGetInfo sees those.
GRANULE = 2 << 20


def pattern_arrays(r: int, memory: str = "") -> None:
    n = 1 + (r * 977) % (1 << 20)
    memory = memory or ("device", "pinned")[r % 2]
    a = cubridge.full(n, 1.5, "float32", memory=memory)
    b = cubridge.zeros(n, "float32", memory=memory)
    cubridge.axpy(2.0, a, b, out=b)
    assert cubridge.sum(b) == 3.0 * n
    assert cubridge.max(cubridge.astype(b, "float64")) == 3.0


def pattern_managed(r: int) -> None:
    pattern_arrays(r, "managed")


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
    "managed": pattern_managed,
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
        start, held_start, in_use_start = used(), held(), in_use()
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
        # Managed memory only: the driver's figure moves with its pages' device
        # residency (+71, +37, +6 MiB after successive windows of 1000 rounds,
        # or a plateau near +110 MiB, the library holding nothing; device and
        # pinned arrays alone: +0). A leak grows in every window: with the
        # library's arrays all freed (in_use_bytes back where it was), up to two
        # more windows must not grow past the first one's end.
        more, first_end = 0, end
        while name == "managed" and not ok and more < 2 and in_use() == in_use_start:
            more += 1
            for r in range(args.rounds):
                fn(r)
            gc.collect()
            end = used()
            ok = end - first_end <= GRANULE
        results[name] = {
            "rounds": args.rounds,
            "start": start,
            "end": end,
            "drift": drift,
            "held_growth": held_end - held_start,
            "after_empty_cache": emptied,
            "more_windows": more,
            "ok": ok,
        }
        extra = (
            ""
            if emptied is None
            else f"; memory_stats held {held_end - held_start:+d}, after empty_cache "
            f"{emptied - start:+d} from start"
        ) + (
            f"; after {more} more window(s) {end - start:+d} from start, "
            f"{end - first_end:+d} from the first window's end"
            if more
            else ""
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
