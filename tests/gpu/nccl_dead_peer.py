"""Two processes, one rank each: rank 1 dies (os._exit) after one all_reduce,
without closing its communicator. Rank 0 then queues another all_reduce, waits
for it with a deadline (Stream.query, Comm.check_async_error), aborts, and
checks that its stream drains and its GPU still computes. The pattern of
docs/multi_gpu.md ("A peer that died or hangs"), with a real dead process.

    python3 tests/gpu/nccl_dead_peer.py     (prints "dead peer ok: ..." from rank 0)
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time
import traceback


def rank_main(rank: int, uid: bytes, q) -> None:  # type: ignore[no-untyped-def]
    try:
        q.put(run(rank, uid))
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)  # closing would wait for the dead peer


def run(rank: int, uid: bytes) -> str:
    import cubridge

    comm = cubridge.Comm.join(uid, rank, 2, device=rank)
    s = cubridge.Stream(rank)
    x = cubridge.full(1 << 20, 1.0, dtype="float32", device=rank)
    comm.all_reduce(x, stream=s)
    s.synchronize()
    assert float(x.to_numpy()[3]) == 2.0
    if rank == 1:
        os._exit(0)  # dies with its communicator open
    time.sleep(2)  # rank 1 is gone by now
    comm.all_reduce(x, stream=s)
    seen = "none"
    deadline = time.monotonic() + 3
    while not s.query():
        try:
            comm.check_async_error()
        except cubridge.Error as e:
            seen = f"{type(e).__name__}: {e}"
            break
        if time.monotonic() > deadline:
            break
    done_before_abort = s.query()
    t0 = time.monotonic()
    comm.abort()
    while not s.query():
        assert time.monotonic() - t0 < 30, "the stream did not drain within 30 s of the abort"
        time.sleep(0.01)
    drained = time.monotonic() - t0
    y = cubridge.full(1000, 2.0, dtype="float32", device=0)
    assert float(cubridge.sum(cubridge.add(y, y, stream=s), stream=s)) == 4000.0
    s.close()
    return (
        f"dead peer ok: done before the abort {done_before_abort}, async error {seen}, "
        f"drained {drained:.3f} s after the abort"
    )


def main() -> int:
    import cubridge

    uid = cubridge.Comm.unique_id()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, uid, q)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    for p in procs:
        if p.is_alive():
            print(f"rank {procs.index(p)} still running after 120 s: killed")
            p.kill()
            p.join()
    lines = []
    while not q.empty():
        lines.append(q.get())
    print("\n".join(lines))
    ok = len(lines) == 1 and lines[0].startswith("dead peer ok") and procs[0].exitcode == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
