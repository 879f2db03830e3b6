#!/usr/bin/env python3
"""Two builds of cubridge, per call, in alternating processes on one GPU host.

An experiment, not part of the library (bench/micro/README.md). Each build is a
directory with a cubridge wheel installed (pip install --no-deps --target DIR).
The driver starts one process per build and round, in turns, so that a slow
minute of the host falls on both; each process times the small calls users
write (n = 1000 float32, Arrays, torch tensors, CuPy arrays) and prints one
JSON line. The driver prints the median over rounds per call, in µs:

    python3 bench/micro/per_call_ab.py --rounds 5 A=/tmp/o0 B=/tmp/o2
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def per_call(fn, sync, calls=5000, rounds=7):
    """Best of `rounds` mean µs per call over `calls` calls, synchronised at both ends."""

    def one_round():
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        return time.perf_counter() - t0

    return min(one_round() for _ in range(rounds)) / calls * 1e6


def measure():
    """The calls of one process: {label: µs}."""
    import cubridge

    n = 1000
    a, b, c = (cubridge.full(n, v, dtype="float32") for v in (1.0, 2.0, 0.0))
    sync = cubridge.synchronize
    calls = {
        "add(out=)": lambda: cubridge.add(a, b, out=c),
        "add new result": lambda: cubridge.add(a, b),
        "sum to float": lambda: float(cubridge.sum(a)),
    }
    try:
        import torch

        ta, tb, tc = (torch.full((n,), v, device="cuda") for v in (1.0, 2.0, 0.0))
        calls["add(out=) torch tensors"] = lambda: cubridge.add(ta, tb, out=tc)
        calls["add new result torch tensors"] = lambda: cubridge.add(ta, tb)
    except ImportError:
        pass
    try:
        import cupy

        ca, cb, cc = (cupy.full(n, v, dtype="float32") for v in (1.0, 2.0, 0.0))
        calls["add(out=) cupy arrays"] = lambda: cubridge.add(ca, cb, out=cc)
    except ImportError:
        pass
    for fn in calls.values():  # warm caches and pools
        per_call(fn, sync, calls=200, rounds=1)
    return {label: per_call(fn, sync) for label, fn in calls.items()}


def main():
    if os.environ.get("PER_CALL_AB_CHILD"):
        print(json.dumps(measure()))
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("builds", nargs="+", help="NAME=DIR (a wheel installed in DIR)")
    args = p.parse_args()
    builds = [tuple(x.split("=", 1)) for x in args.builds]
    seen = {name: {} for name, _ in builds}
    for r in range(args.rounds):
        for name, path in builds:
            env = dict(os.environ, PYTHONPATH=path, PER_CALL_AB_CHILD="1")
            out = subprocess.run([sys.executable, __file__], env=env, check=True,
                                 capture_output=True, text=True).stdout
            for label, us in json.loads(out.splitlines()[-1]).items():
                seen[name].setdefault(label, []).append(us)
            print(f"round {r + 1} {name}: {out.strip()}", flush=True)
    labels = list(seen[builds[0][0]])
    print(f"\nmedian of {args.rounds} rounds, µs per call (n = 1000 float32)")
    print(f"{'call':32}" + "".join(f"{name:>10}" for name, _ in builds))
    for label in labels:
        print(f"{label:32}" + "".join(
            f"{statistics.median(seen[name].get(label, [float('nan')])):10.2f}"
            for name, _ in builds))


if __name__ == "__main__":
    main()
