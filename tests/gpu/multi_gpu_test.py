"""The multi-GPU battery (issue 13) for the GPU host: pytest, the wheel on PYTHONPATH.

    CUBRIDGE_BACKEND=cuda python3 -m pytest -q -rs tests/gpu/multi_gpu_test.py

Runs on any number of GPUs: with one, the checks that need a second device skip
(named below) and the communicators are one-rank (all_reduce is the identity,
broadcast a copy, ...); with two or more every check runs. After each refused
call the library must still compute right answers (`healthy`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import cubridge

torch = pytest.importorskip("torch")
NDEV = torch.cuda.device_count()
if cubridge.backend() != "cuda" or NDEV == 0:
    pytest.skip("needs the CUDA backend and a GPU", allow_module_level=True)

two = pytest.mark.skipif(NDEV < 2, reason="needs 2 GPUs (this host has 1)")


def healthy(device: int = 0) -> None:
    """Right answers on `device` after whatever happened before."""
    x = torch.arange(1000, dtype=torch.float32, device=f"cuda:{device}")
    out = torch.empty_like(x)
    cubridge.add(x, x, out=out)
    torch.cuda.synchronize(device)
    assert torch.equal(out, x + x)
    assert cubridge.sum(x) == 499500.0


# ---- ops on each device (issue 13.1) -----------------------------------------


@pytest.mark.parametrize("dev", range(NDEV))
def test_ops_on_each_device_torch(dev):
    x = torch.arange(1 << 16, dtype=torch.float32, device=f"cuda:{dev}")
    out = torch.empty_like(x)
    cubridge.add(x, x, out=out)
    torch.cuda.synchronize(dev)
    assert torch.equal(out, 2 * x)
    assert cubridge.sum(x) == float(x.double().sum())
    assert cubridge.max(x) == float(x.max())
    healthy(dev)


@pytest.mark.parametrize("dev", range(NDEV))
def test_arrays_on_each_device(dev):
    a = cubridge.full(1000, 3.0, "float32", device=dev)
    assert a.device == dev
    assert a.__dlpack_device__() == (2, dev)
    b = cubridge.mul(a, a)
    assert b.device == dev
    assert cubridge.sum(b) == 9000.0
    t = torch.from_dlpack(b)
    assert t.device == torch.device("cuda", dev)


def test_current_device_left_alone():
    torch.cuda.set_device(0)
    x = torch.ones(100, device=f"cuda:{NDEV - 1}")
    cubridge.sum(x)
    assert torch.cuda.current_device() == 0


@two
def test_mixed_devices_refused_then_healthy():
    x0 = torch.ones(1000, device="cuda:0")
    x1 = torch.ones(1000, device="cuda:1")
    with pytest.raises(cubridge.InvalidArgumentError, match="device 0.*device 1|device 1.*device 0"):
        cubridge.add(x0, x1)
    with pytest.raises(cubridge.InvalidArgumentError):
        cubridge.add(x0, x0, out=torch.empty_like(x1))
    healthy(0)
    healthy(1)


@two
def test_errors_on_cuda1_keep_their_message():
    # Device 1's default stream is a wrapper released after the op: the library's
    # message must be read before that release (it came out as 'INVALID_ARGUMENT').
    torch.cuda.set_device(0)
    x = torch.ones(8, device="cuda:1")
    with pytest.raises(cubridge.InvalidArgumentError, match="'out' and 'a' partially overlap"):
        cubridge.add(x[:5], x[:5], out=x[1:6])
    healthy(1)


@two
def test_foreign_arrays_on_cuda1():
    cupy = pytest.importorskip("cupy")
    x = torch.arange(1 << 20, dtype=torch.float32, device="cuda:1")
    assert cubridge.sum(x) == float(x.double().sum())  # illegal access before issue 13
    with cupy.cuda.Device(1):
        c = cupy.arange(1 << 20, dtype=cupy.float32)
        out = cupy.empty_like(c)
    cubridge.add(c, c, out=out)
    cupy.cuda.Device(1).synchronize()
    assert bool((out == 2 * c).all())
    healthy(1)


@two
def test_stream_of_other_device_refused():
    x = torch.ones(1000, device="cuda:0")
    s1 = torch.cuda.Stream(device=1)
    with pytest.raises(cubridge.InvalidArgumentError):
        cubridge.add(x, x, out=torch.empty_like(x), stream=s1)
    healthy(0)


# ---- stream orders on another device than the current one ---------------------
# A default-stream handle means the default stream of the *current* device to
# CUDA; the orders between a foreign stream and an op on the default stream must
# reach the default stream of the arrays' device (cuda:1) while device 0 is current.
# torch's streams are non-blocking: only an event orders them. Each body runs
# unspun first, so that lazy module loading cannot order the streams by itself.

SPIN_N = 1 << 22
SPIN_CYCLES = 200_000_000  # about 0.1 s: far longer than any call here


def spin_on(stream) -> None:
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SPIN_CYCLES)


@pytest.fixture
def cuda1_stream_current_device_0():
    """torch's current stream of cuda:1 is a stream of its own; device 0 is current."""
    s1 = torch.cuda.Stream(device=1)
    torch.cuda.set_stream(s1)  # torch makes cuda:1 current too
    torch.cuda.set_device(0)
    yield s1
    torch.cuda.set_stream(torch.cuda.default_stream(1))
    torch.cuda.set_device(0)


@two
def test_torch_stream_of_cuda1_ordered_before_an_op(cuda1_stream_current_device_0):
    s1 = cuda1_stream_current_device_0
    for spin in (False, True):
        x = torch.zeros(SPIN_N, device="cuda:1")
        torch.cuda.synchronize(1)
        if spin:
            spin_on(s1)
        x.fill_(7.0)  # on s1 (torch's current stream of x's device), late
        assert torch.cuda.current_device() == 0
        y = cubridge.add(x, x)  # on cuda:1's default stream, after s1's fill
        assert y.to_numpy()[[0, -1]].tolist() == [14.0, 14.0]


@two
def test_an_op_ordered_before_torch_stream_of_cuda1(cuda1_stream_current_device_0):
    s1 = cuda1_stream_current_device_0
    for spin in (False, True):
        x = torch.full((SPIN_N,), 3.0, device="cuda:1")
        y = torch.zeros_like(x)
        torch.cuda.synchronize(1)
        if spin:
            spin_on(torch.cuda.default_stream(1))  # the op's stream starts late
        cubridge.add(x, x, out=y)  # on cuda:1's default stream
        z = y + 1  # on s1: after the op
        s1.synchronize()
        assert z[[0, -1]].tolist() == [7.0, 7.0]


@two
def test_array_of_cuda1_handed_to_torch_after_its_write():
    ts = torch.cuda.Stream(device=1)
    torch.cuda.set_device(0)
    for i, spin in enumerate((False, True)):
        a = cubridge.full(SPIN_N, float(i + 1), device=1)
        torch.cuda.synchronize(1)
        if spin:
            spin_on(ts)
        y = cubridge.add(a, a, stream=ts)  # written on ts, late
        t = torch.from_dlpack(y)  # read on cuda:1's default stream
        r = t + 0
        torch.cuda.synchronize(1)
        assert r[[0, -1]].tolist() == [2.0 * (i + 1)] * 2


def park_one(device: int, n: int) -> None:
    """A new result on a torch stream of `device`, freed: its block is parked."""
    x = torch.ones(n, device=f"cuda:{device}")
    s = torch.cuda.Stream(device=device)
    with torch.cuda.device(device), torch.cuda.stream(s):
        z = cubridge.add(x, x)
    s.synchronize()
    del z


@two
def test_parked_blocks_stay_on_their_device():
    cubridge.empty_cache(0)
    cubridge.empty_cache(1)
    park_one(0, 1 << 16)
    park_one(1, 1 << 16)
    cached0 = cubridge.memory_stats(0)["cached_bytes"]
    assert cubridge.memory_stats(1)["cached_bytes"] >= 4 << 16
    cubridge.empty_cache(1)  # device 1's blocks only
    assert cubridge.memory_stats(1)["cached_bytes"] == 0
    assert cubridge.memory_stats(0)["cached_bytes"] == cached0 >= 4 << 16
    # A new result on device 1 of the size parked on device 0 takes new memory there.
    park_one(1, 1 << 16)
    assert cubridge.memory_stats(0)["cached_bytes"] == cached0
    cubridge.empty_cache(0)
    cubridge.empty_cache(1)
    healthy(1)


# ---- NCCL communicators (issue 13.2) ------------------------------------------


def test_nccl_found():
    v = cubridge.Comm.nccl_version()
    assert v[0] == 2, v


@pytest.fixture
def comm():
    with cubridge.Comm() as c:
        yield c
    assert c.closed


def per_device(make):
    return [make(d) for d in range(NDEV)]


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_all_reduce_vs_numpy(comm, op, dtype):
    n = 4097
    host = [np.random.default_rng(r).integers(1, 5, n) for r in range(NDEV)]
    xs = per_device(lambda d: torch.tensor(host[d], dtype=dtype, device=f"cuda:{d}"))
    comm.all_reduce(xs, op=op)
    want = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[op](np.stack(host), axis=0)
    for d, x in enumerate(xs):
        torch.cuda.synchronize(d)
        np.testing.assert_array_equal(x.cpu().numpy(), want.astype(x.cpu().numpy().dtype))


def test_all_reduce_out_of_place_and_half_types(comm):
    for dtype in (torch.float16, torch.bfloat16):
        xs = per_device(lambda d: torch.full((1000,), d + 1.0, dtype=dtype, device=f"cuda:{d}"))
        ys = per_device(lambda d: torch.empty(1000, dtype=dtype, device=f"cuda:{d}"))
        assert comm.all_reduce(xs, ys) is ys
        for d in range(NDEV):
            torch.cuda.synchronize(d)
            assert float(ys[d][0]) == NDEV * (NDEV + 1) / 2
            assert float(xs[d][0]) == d + 1.0


def test_broadcast_reduce_scatter_all_gather(comm):
    n = 1024
    root = NDEV - 1
    xs = per_device(lambda d: torch.full((n,), float(d), device=f"cuda:{d}"))
    comm.broadcast(xs, root=root)
    for d in range(NDEV):
        torch.cuda.synchronize(d)
        assert torch.all(xs[d] == root)
    send = per_device(lambda d: torch.full((n,), float(d), device=f"cuda:{d}"))
    gathered = per_device(lambda d: torch.empty(n * NDEV, device=f"cuda:{d}"))
    comm.all_gather(send, gathered)
    want = np.repeat(np.arange(NDEV, dtype=np.float32), n)
    for d in range(NDEV):
        torch.cuda.synchronize(d)
        np.testing.assert_array_equal(gathered[d].cpu().numpy(), want)
    recv = per_device(lambda d: torch.empty(n, device=f"cuda:{d}"))
    comm.reduce_scatter(gathered, recv)
    for d in range(NDEV):
        torch.cuda.synchronize(d)
        assert torch.all(recv[d] == NDEV * d)


def test_collectives_on_cubridge_and_cupy_arrays(comm):
    arrays = per_device(lambda d: cubridge.full(100, 2.0, "float32", device=d))
    comm.all_reduce(arrays, op="sum")
    for a in arrays:
        np.testing.assert_array_equal(a.to_numpy(), np.full(100, 2.0 * NDEV, np.float32))
    cupy = pytest.importorskip("cupy")
    cs = []
    for d in range(NDEV):
        with cupy.cuda.Device(d):
            cs.append(cupy.full(100, 3, dtype=cupy.int64))
    comm.all_reduce(cs, op="max")
    for d, c in enumerate(cs):
        with cupy.cuda.Device(d):
            assert int(c.max()) == 3


def test_streams(comm):
    streams = per_device(lambda d: torch.cuda.Stream(device=d))
    xs = per_device(lambda d: torch.ones(1 << 20, device=f"cuda:{d}"))
    comm.all_reduce(xs, stream=streams)
    for s, x in zip(streams, xs):
        s.synchronize()
        assert float(x[0]) == NDEV


def test_refusals_then_healthy(comm):
    xs = per_device(lambda d: torch.ones(16, device=f"cuda:{d}"))
    with pytest.raises(ValueError, match="op"):
        comm.all_reduce(xs, op="mean")
    with pytest.raises(ValueError, match="root"):
        comm.broadcast(xs, root=NDEV)
    with pytest.raises(cubridge.InvalidArgumentError, match="pageable host memory"):
        comm.all_reduce([np.ones(16, np.float32)] * NDEV)
    if NDEV > 1:  # one rank: a receive buffer the size of the send buffer is right
        with pytest.raises(ValueError, match="nranks"):
            comm.all_gather(xs, xs)
        swapped = xs[::-1]
        with pytest.raises(cubridge.InvalidArgumentError, match="is on device"):
            comm.all_reduce(swapped)
        with pytest.raises(ValueError, match="one array per local device"):
            comm.all_reduce(xs[:1])
    healthy(0)
    comm.all_reduce(xs)
    for d in range(NDEV):
        torch.cuda.synchronize(d)
        assert float(xs[d][0]) == NDEV


def test_the_check_pass_refuses_what_the_launch_would(comm):
    # What cubridge.Comm runs on every rank before a group (a rank refused inside the
    # group would leave the others waiting): the C library's own checks, launching
    # nothing. Here: all_gather's send overlapping recv but not at this rank's slice.
    from cubridge import _comm, _native

    x = torch.zeros(2 * NDEV + 1, device="cuda:0")
    send, recv = x[1:3], x[: 2 * NDEV]
    with pytest.raises(cubridge.InvalidArgumentError, match="overlap but not in place"):
        _native._comm_collective(_comm._ALL_GATHER, comm._comms[0], send, recv, 0, None, _comm._CHECK)
    _native._comm_collective(_comm._ALL_GATHER, comm._comms[0], x[:2], recv, 0, None, _comm._CHECK)
    assert x.tolist() == [0.0] * (2 * NDEV + 1), "nothing ran"
    healthy(0)


@two
def test_a_stream_of_another_device_is_refused_before_any_rank_runs(comm):
    # One torch stream of device 0 for every rank: rank 1's is refused by the check pass,
    # so no rank was queued and nothing waits for it (before: rank 0 hung).
    xs = per_device(lambda d: torch.ones(16, device=f"cuda:{d}"))
    with pytest.raises(cubridge.InvalidArgumentError, match="'stream' belongs to device 0"):
        comm.all_reduce(xs, stream=torch.cuda.Stream(device=0))
    comm.all_reduce(xs)
    for d in range(NDEV):
        torch.cuda.synchronize(d)
        assert float(xs[d][0]) == NDEV


@two
def test_a_group_records_its_uses_after_the_kernels(comm):
    # The arrays' events must be recorded after the group's end queued NCCL's kernels:
    # recorded before (inside the group) they complete with the spin, before the
    # all_reduce, and the host reads 1.0.
    streams = per_device(lambda d: torch.cuda.Stream(device=d))  # non-blocking
    xs = per_device(lambda d: cubridge.full(1 << 24, 1.0, "float32", device=d))
    cubridge.synchronize()
    for s in streams:
        with torch.cuda.stream(s):
            torch.cuda._sleep(200_000_000)
    comm.all_reduce(xs, stream=streams)
    for x in xs:
        assert x.to_numpy()[[0, -1]].tolist() == [float(NDEV)] * 2


def test_close_while_another_thread_runs_collectives():
    # close() from another thread frees nothing under a collective in flight: it waits
    # for it, and the looping thread's next call is refused by name. (Before, the
    # communicator could be destroyed under the running NCCL call: a crash, not an
    # assertion, is what this catches then.)
    import threading

    c = cubridge.Comm([0])
    x = torch.ones(1 << 20, device="cuda:0")
    errors = []
    started = threading.Event()

    def loop():
        try:
            for _ in range(100_000):
                c.all_reduce(x)
                started.set()
        except ValueError as e:
            errors.append(e)
        finally:
            started.set()

    t = threading.Thread(target=loop)
    t.start()
    started.wait(30)
    c.close()
    t.join(60)
    assert not t.is_alive()
    assert c.closed
    assert len(errors) == 1 and "closed" in str(errors[0]), errors
    healthy(0)


def test_two_threads_on_one_comm_take_turns():
    # NCCL takes one call on a communicator at a time: the second thread's calls wait
    # for the first's instead of running inside them. (With one rank, interleaved calls
    # still give right values: a crash or a hang is what this catches.)
    import threading

    with cubridge.Comm([0]) as c:
        xs = [cubridge.full(1 << 16, 1.0, "float32") for _ in range(2)]

        def loop(x):
            for _ in range(500):
                c.all_reduce(x, op="max")

        threads = [threading.Thread(target=loop, args=(x,)) for x in xs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        for x in xs:
            assert x.to_numpy()[[0, -1]].tolist() == [1.0, 1.0]
    healthy(0)


def test_closed_comm_refused():
    c = cubridge.Comm([0])
    c.close()
    c.close()
    with pytest.raises(ValueError, match="closed"):
        c.all_reduce(torch.ones(4, device="cuda:0"))
    healthy(0)


@two
def test_abort_ends_a_collective_whose_peer_never_came():
    """Two ranks of one communicator, one thread each: both run one all_reduce,
    then only rank 0 queues another. Its kernel waits for rank 1 forever, which
    Stream.query shows; Comm.abort ends it, the stream drains and both devices
    work on."""
    uid = cubridge.Comm.unique_id()
    comms = [None, None]
    xs = [cubridge.full(1 << 20, 1.0, dtype="float32", device=d) for d in range(2)]
    streams = [cubridge.Stream(d) for d in range(2)]

    def rank(r):
        comms[r] = cubridge.Comm.join(uid, r, 2, device=r)
        comms[r].all_reduce(xs[r], stream=streams[r])
        streams[r].synchronize()

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(c is not None for c in comms), "the ranks did not join"
    assert [float(x.to_numpy()[5]) for x in xs] == [2.0, 2.0]
    c0, c1 = comms
    c0.all_reduce(xs[0], stream=streams[0])  # rank 1 never comes
    for _ in range(100):  # one second
        assert not streams[0].query(), "the all_reduce finished without its peer"
        time.sleep(0.01)
    c0.check_async_error()  # a peer that stops calling is no NCCL error
    c0.abort()
    assert c0.closed
    deadline = time.monotonic() + 30
    while not streams[0].query():
        assert time.monotonic() < deadline, "the stream did not drain within 30 s of the abort"
        time.sleep(0.01)
    c1.abort()
    c0.abort()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        c0.check_async_error()
    with pytest.raises(ValueError, match="closed"):
        c0.all_reduce(xs[0])
    for s in streams:
        s.close()
    healthy(0)
    healthy(1)


@two
def test_abort_after_a_peer_process_died():
    """Rank 1's process dies with its communicator open; rank 0's next
    all_reduce is aborted after a deadline and its GPU works on."""
    script = os.path.join(os.path.dirname(__file__), "nccl_dead_peer.py")
    r = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=240)
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dead peer ok" in r.stdout


def test_two_ranks_over_a_unique_id():
    """Processes joined by a unique id: one rank per GPU (a one-rank
    communicator on a single-GPU host: NCCL refuses two ranks on one GPU)."""
    script = os.path.join(os.path.dirname(__file__), "nccl_ranks.py")
    nranks = min(NDEV, 2)
    r = subprocess.run([sys.executable, script, str(nranks)], capture_output=True, text=True, timeout=240)
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("rank ok") == nranks
