#!/usr/bin/env python3
"""Where a small add's wall time goes: the library's host work, the launch, the GPU.

An experiment, not part of the library (bench/micro/README.md). Prints, in µs per call:
`add` on empty Arrays (every host step but the route and the launch: the C library
returns before them for n = 0) against n = 1000, and bursts of n = 1000 adds timed to
the end of their enqueue and to their completion. Bursts shorter than the launch queue
never wait for the GPU, so if the enqueue time of a short burst is the whole time of a
long one, the call is bound by the host's launch path, not by the GPU. torch's add is
timed the same way when torch is installed. On the GPU host:

    PYTHONPATH=<dir with the cubridge wheel installed> python3 bench/micro/small_call_split.py
"""

import time

import cubridge

try:
    import torch
except ImportError:
    torch = None

BURSTS = (16, 256, 20000)


def per_call(fn, sync, calls=20000, rounds=7):
    """Best of `rounds` mean µs per call over `calls` calls, synchronised at both ends."""
    best = float("inf")
    for _ in range(rounds):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def bursts(fn, sync):
    """(burst, enqueue µs per call, completion µs per call) for each burst length."""
    out = []
    for burst in BURSTS:
        enq = done = float("inf")
        for _ in range(30 if burst < 1000 else 5):
            sync()
            t0 = time.perf_counter()
            for _ in range(burst):
                fn()
            t1 = time.perf_counter()
            sync()
            t2 = time.perf_counter()
            enq, done = min(enq, (t1 - t0) / burst), min(done, (t2 - t0) / burst)
        out.append((burst, enq * 1e6, done * 1e6))
    return out


def main():
    e0, e1, e2 = (cubridge.empty(0) for _ in range(3))
    a, b, c = (cubridge.full(1000, v) for v in (1.0, 2.0, 3.0))
    sync = cubridge.synchronize
    empty_us = per_call(lambda: cubridge.add(e0, e1, out=e2), sync)
    small_us = per_call(lambda: cubridge.add(a, b, out=c), sync)
    print(f"add, n = 0 (no route, no launch)  {empty_us:6.2f} us")
    print(f"add, n = 1000                     {small_us:6.2f} us")
    peers = [("cubridge", lambda: cubridge.add(a, b, out=c), sync)]
    if torch is not None and torch.cuda.is_available():
        ta, tb, tc = (torch.full((1000,), v, device="cuda") for v in (1.0, 2.0, 3.0))
        peers.append(("torch", lambda: torch.add(ta, tb, out=tc), torch.cuda.synchronize))
    for name, fn, peer_sync in peers:
        for burst, enq, done in bursts(fn, peer_sync):
            print(f"{name:8s} burst {burst:6d}: enqueue {enq:5.2f} us per add, to done {done:5.2f}")


if __name__ == "__main__":
    main()
