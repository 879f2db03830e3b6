#!/usr/bin/env python3
"""all_reduce bus bandwidth: cubridge (Python and Go) beside torch.distributed (NCCL), one run.

Usage (GPU host, the wheel on PYTHONPATH, NCCL from torch's nvidia-nccl wheel):
    python3 bench/nccl_bench.py --out OUT [--go PATH/TO/ncclbench] [--quick]

For each size (float32, 8 KiB .. 1 GiB, doubling) and each implementation:
  torch      torch.distributed, backend "nccl", one process per GPU
  cubridge   cubridge.Comm.join, one process per GPU (the same shape as torch)
  cubridge-1p cubridge.Comm over every GPU from one process (an NCCL group per call)
  go         the Go benchmark (bench/ncclbench): NewLocalComms, one goroutine per GPU
Every rank: 5 warm-up calls, a barrier, then `iters` in-place all_reduce(sum) calls
back to back on the current stream and one synchronize; time per call = elapsed / iters,
the slowest rank's. As nccl-tests defines them: algbw = bytes / time, busbw = algbw *
2 (n - 1) / n (n = ranks; with one GPU busbw is 0 and algbw is reported).
Writes OUT/nccl.json and OUT/nccl.md (busbw in GB/s, and cubridge / torch).
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
import traceback

KiB, GiB = 1 << 10, 1 << 30


def sizes(quick: bool) -> list[int]:
    top = 64 << 20 if quick else GiB
    out, s = [], 8 * KiB
    while s <= top:
        out.append(s)
        s *= 4 if quick else 2
    return out


def iters_for(nbytes: int, quick: bool) -> int:
    base = 20 if quick else 50
    return max(5, min(1000, base * (64 << 20) // max(nbytes, 1) // 8 + 5))


def bw(nbytes: int, seconds: float, nranks: int) -> tuple[float, float]:
    algbw = nbytes / seconds / 1e9
    return algbw, algbw * 2 * (nranks - 1) / nranks


# ---- one rank of a multi-process run -----------------------------------------------


def rank_main(impl: str, rank: int, nranks: int, rendezvous: str, uid: bytes, quick: bool, q) -> None:  # type: ignore[no-untyped-def]
    try:
        import torch

        torch.cuda.set_device(rank)
        dev = f"cuda:{rank}"
        if impl == "torch":
            import torch.distributed as dist

            dist.init_process_group("nccl", init_method=f"file://{rendezvous}", rank=rank, world_size=nranks)

            def allreduce(x):  # type: ignore[no-untyped-def]
                dist.all_reduce(x)

            def slowest(t: float) -> float:
                v = torch.tensor([t], device=dev, dtype=torch.float64)
                dist.all_reduce(v, op=dist.ReduceOp.MAX)
                return float(v)

            close = dist.destroy_process_group
        else:
            import cubridge

            comm = cubridge.Comm.join(uid, rank, nranks, device=rank)

            def allreduce(x):  # type: ignore[no-untyped-def]
                comm.all_reduce(x)

            def slowest(t: float) -> float:
                v = torch.tensor([t], device=dev, dtype=torch.float64)
                comm.all_reduce(v, op="max")
                torch.cuda.synchronize(rank)
                return float(v)

            close = comm.close
        rows = []
        for nbytes in sizes(quick):
            x = torch.ones(nbytes // 4, dtype=torch.float32, device=dev)
            for _ in range(5):
                allreduce(x)
            torch.cuda.synchronize(rank)
            slowest(0.0)  # barrier
            n = iters_for(nbytes, quick)
            t0 = time.perf_counter()
            for _ in range(n):
                allreduce(x)
            torch.cuda.synchronize(rank)
            t = slowest((time.perf_counter() - t0) / n)
            rows.append((nbytes, n, t))
            del x
        close()
        if rank == 0:
            q.put(("ok", rows))
    except Exception:  # noqa: BLE001 (reported)
        q.put(("error", traceback.format_exc()))


def run_procs(impl: str, nranks: int, quick: bool) -> list[dict]:
    import cubridge

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        uid = cubridge.Comm.unique_id() if impl == "cubridge" else b""
        procs = [
            ctx.Process(target=rank_main, args=(impl, r, nranks, os.path.join(tmp, "rdv"), uid, quick, q))
            for r in range(nranks)
        ]
        for p in procs:
            p.start()
        status, payload = q.get(timeout=1800)
        for p in procs:
            p.join(60)
    if status != "ok":
        raise RuntimeError(payload)
    return [row(impl, nranks, nbytes, n, t) for nbytes, n, t in payload]


def row(impl: str, nranks: int, nbytes: int, iters: int, seconds: float) -> dict:
    algbw, busbw = bw(nbytes, seconds, nranks)
    return {
        "impl": impl,
        "nranks": nranks,
        "bytes": nbytes,
        "iters": iters,
        "time_us": seconds * 1e6,
        "algbw_gbps": algbw,
        "busbw_gbps": busbw,
    }


# ---- cubridge from one process ---------------------------------------------------------


def run_one_process(nranks: int, quick: bool) -> list[dict]:
    import torch

    import cubridge

    rows = []
    with cubridge.Comm(list(range(nranks))) as comm:
        for nbytes in sizes(quick):
            xs = [torch.ones(nbytes // 4, dtype=torch.float32, device=f"cuda:{d}") for d in range(nranks)]
            for _ in range(5):
                comm.all_reduce(xs)
            for d in range(nranks):
                torch.cuda.synchronize(d)
            n = iters_for(nbytes, quick)
            t0 = time.perf_counter()
            for _ in range(n):
                comm.all_reduce(xs)
            for d in range(nranks):
                torch.cuda.synchronize(d)
            rows.append(row("cubridge-1p", nranks, nbytes, n, (time.perf_counter() - t0) / n))
            del xs
    return rows


def run_go(binary: str, nranks: int, quick: bool) -> list[dict]:
    args = [binary, "-devices", str(nranks)] + (["-quick"] if quick else [])
    r = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        raise RuntimeError(r.stdout + r.stderr)
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def table(results: list[dict], nranks: int) -> str:
    impls = [i for i in ["torch", "cubridge", "cubridge-1p", "go"] if any(r["impl"] == i for r in results)]
    key = "busbw_gbps" if nranks > 1 else "algbw_gbps"
    by = {(r["impl"], r["bytes"]): r for r in results}
    head = f"| size | " + " | ".join(f"{i} {key.split('_')[0]} GB/s" for i in impls)
    head += " | cubridge / torch | go / torch |\n|---:|" + "---:|" * (len(impls) + 2) + "\n"
    lines = []
    for nbytes in sorted({r["bytes"] for r in results}):
        cells = [by.get((i, nbytes), {}).get(key) for i in impls]
        t = by.get(("torch", nbytes), {}).get(key)
        ratio = lambda i: (f"{by[(i, nbytes)][key] / t:.3f}" if t and (i, nbytes) in by else "")  # noqa: E731
        size = f"{nbytes // KiB} KiB" if nbytes < (1 << 20) else f"{nbytes >> 20} MiB"
        lines.append(
            f"| {size} | " + " | ".join("" if c is None else f"{c:.2f}" for c in cells) + f" | {ratio('cubridge')} | {ratio('go')} |"
        )
    return head + "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--go", default="", help="the ncclbench binary (bench/ncclbench)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ranks", type=int, default=0, help="GPUs to use (default: all, at most 8)")
    args = ap.parse_args()
    import torch

    import cubridge

    nranks = args.ranks or min(torch.cuda.device_count(), 8)
    meta = {
        "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpus": [torch.cuda.get_device_name(d) for d in range(nranks)],
        "torch": torch.__version__,
        "torch_nccl": ".".join(map(str, torch.cuda.nccl.version())),
        "cubridge_nccl": ".".join(map(str, cubridge.Comm.nccl_version())),
        "nranks": nranks,
    }
    print(json.dumps(meta))
    results, errors = [], {}
    for impl, fn in [
        ("torch", lambda: run_procs("torch", nranks, args.quick)),
        ("cubridge", lambda: run_procs("cubridge", nranks, args.quick)),
        ("cubridge-1p", lambda: run_one_process(nranks, args.quick)),
        ("go", lambda: run_go(args.go, nranks, args.quick) if args.go else []),
    ]:
        try:
            got = fn()
            results += got
            for r in got:
                print(f"{impl:12s} {r['bytes']:>11d} B  {r['time_us']:10.1f} us  busbw {r['busbw_gbps']:7.2f}  algbw {r['algbw_gbps']:7.2f} GB/s")
        except Exception:  # noqa: BLE001 (reported)
            errors[impl] = traceback.format_exc()
            print(f"{impl}: FAILED\n{errors[impl]}", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "nccl.json"), "w") as f:
        json.dump({"meta": meta, "results": results, "errors": errors}, f, indent=1)
    md = f"# all_reduce (sum, float32, in place) on {nranks} × {meta['gpus'][0]}\n\n"
    md += f"torch {meta['torch']} (NCCL {meta['torch_nccl']}), cubridge NCCL {meta['cubridge_nccl']}, {meta['when']}\n\n"
    md += table(results, nranks)
    with open(os.path.join(args.out, "nccl.md"), "w") as f:
        f.write(md)
    print(md)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
