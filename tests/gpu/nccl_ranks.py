"""N processes, one rank each, joined by a unique id made by rank 0 and passed
through a pipe; every collective checked against NumPy in each process.

    python3 tests/gpu/nccl_ranks.py NRANKS      (prints "rank ok" once per rank)
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import traceback

import numpy as np


def rank_main(rank: int, nranks: int, uid: bytes, q) -> None:  # type: ignore[no-untyped-def]
    import cubridge

    with cubridge.Comm.join(uid, rank, nranks, device=rank) as comm:
        try:
            check_collectives(comm, rank, nranks)
        except BaseException:
            # A failed rank says why and leaves at once: closing the communicator
            # waits for the peers, and they wait for this rank's next collective.
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
    q.put(f"rank ok {rank}")


def check_collectives(comm, rank: int, nranks: int) -> None:  # type: ignore[no-untyped-def]
    import torch

    import cubridge

    dev = rank
    assert comm.size == nranks and comm.ranks == [rank] and comm.devices == [dev]
    x = torch.full((1 << 20,), float(rank + 1), device=f"cuda:{dev}")
    comm.all_reduce(x, op="sum")
    torch.cuda.synchronize(dev)
    assert float(x[0]) == nranks * (nranks + 1) / 2, float(x[0])
    y = torch.full((4096,), float(rank), device=f"cuda:{dev}")
    comm.broadcast(y, root=nranks - 1)
    g = torch.empty(4096 * nranks, device=f"cuda:{dev}")
    comm.all_gather(torch.full((4096,), float(rank), device=f"cuda:{dev}"), g)
    r = torch.empty(4096, device=f"cuda:{dev}")
    comm.reduce_scatter(g, r, op="max")
    torch.cuda.synchronize(dev)
    assert torch.all(y == nranks - 1)
    np.testing.assert_array_equal(g.cpu().numpy(), np.repeat(np.arange(nranks, dtype=np.float32), 4096))
    assert torch.all(r == rank)  # the max of every rank's slice `rank` of g
    # A refused call, then a right answer.
    try:
        comm.all_reduce(np.ones(4, np.float32))
        raise AssertionError("host memory accepted")
    except cubridge.InvalidArgumentError:
        pass
    comm.all_reduce(x, op="min")
    torch.cuda.synchronize(dev)
    assert float(x[0]) == nranks * (nranks + 1) / 2


def main() -> int:
    nranks = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    import cubridge

    uid = cubridge.Comm.unique_id()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, nranks, uid, q)) for r in range(nranks)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(180)
    for p in procs:  # a rank left waiting for a failed one
        if p.is_alive():
            p.kill()
            p.join()
    ok = 0
    while not q.empty():
        print(q.get())
        ok += 1
    bad = [p.exitcode for p in procs if p.exitcode != 0]
    return 0 if ok == nranks and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
