"""Streams ordered by events, never by a device-wide synchronisation (issue 18.3), and
the caching pool (issue 15) on a real GPU.

Proof that nothing waits for the whole device: an unrelated torch stream runs a long
spin kernel (torch.cuda._sleep) while cubridge hands an Array to a consumer on another
stream, reads a CuPy array written on a third stream, and frees Arrays used on yet
another. Each call must return at once and the unrelated stream must still be running
after the consumer's stream finished. Skips without the GPU backend, CuPy or torch.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from typing import Any

import pytest

import cubridge
from gpu_peers import require_cuda_and_peers

cupy, torch = require_cuda_and_peers()

N = 1 << 22
# About a second of spinning on an H100 (1.98 GHz): far longer than any call here.
SLEEP_CYCLES = 2_000_000_000
QUICK_S = 0.25  # what "at once" means for one call


def warm_up_kernels(cai_only: Any) -> None:
    """CUDA loads a kernel's module at its first launch (lazy loading, the
    default) and that load waits for the device: launch every kernel the tests
    use once, with their sizes and dtypes, before the unrelated stream spins,
    or the first launch (not cubridge's ordering) waits for it."""
    t = torch.zeros(N, device="cuda")
    float(t.sum())
    x = cupy.full(N, 3.0, dtype=cupy.float32)
    y = cupy.empty_like(x)
    float(y[0]), float(x.sum())
    a = cubridge.zeros(N, "float32")
    cubridge.fill(a, 1.0)
    b = cubridge.mul(cubridge.full(N, 1.0, "float32"), a)
    cubridge.add(cai_only(x), cai_only(x), out=cai_only(y))
    assert cubridge.sum(b) == float(N)
    assert float(cupy.asarray(a).sum()) == float(N)
    assert float(torch.from_dlpack(a).sum()) == float(N)
    torch.cuda.synchronize()


@pytest.fixture
def busy_stream(cai_only: Any) -> Any:
    """An unrelated, non-blocking torch stream kept busy for about a second."""
    warm_up_kernels(cai_only)
    cubridge.synchronize()
    u = torch.cuda.Stream()
    with torch.cuda.stream(u):
        torch.cuda._sleep(SLEEP_CYCLES)
    yield u
    u.synchronize()


def test_dlpack_export_to_a_consumer_stream_waits_for_an_event(busy_stream: Any) -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    c = torch.cuda.Stream()
    a = cubridge.zeros(N, "float32")  # written on the default stream
    t0 = time.perf_counter()
    cubridge.fill(a, 7.0, stream=s)  # pending on s
    with torch.cuda.stream(c):
        t = torch.from_dlpack(a)  # a.__dlpack__(stream=c): c waits for s's event
        total = t.sum()
    assert time.perf_counter() - t0 < QUICK_S
    c.synchronize()
    assert float(total) == 7.0 * N
    assert not busy_stream.query(), "c waited for the unrelated stream (a device sync)"


def test_cai_producer_stream_is_ordered_by_an_event(busy_stream: Any, cai_only: Any) -> None:
    p = cupy.cuda.Stream(non_blocking=True)
    q = cupy.cuda.Stream(non_blocking=True)
    with p:
        x = cupy.full(N, 3.0, dtype=cupy.float32)  # pending on p
        y = cupy.empty_like(x)
        t0 = time.perf_counter()
        # Inside `with p`, CuPy's interface names p: q waits for p on the device.
        cubridge.add(cai_only(x), cai_only(x), out=cai_only(y), stream=q)
        assert time.perf_counter() - t0 < QUICK_S
    q.synchronize()
    assert float(y[0]) == 6.0 and float(y[-1]) == 6.0
    assert not busy_stream.query(), "q waited for the unrelated stream"


def test_cai_export_of_pending_work_needs_no_host_wait(busy_stream: Any) -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    a = cubridge.zeros(N, "float32")
    cubridge.fill(a, 2.0, stream=s)
    t0 = time.perf_counter()
    cai = a.__cuda_array_interface__  # the default stream waits for s: stream 1
    assert cai["stream"] == 1 and time.perf_counter() - t0 < QUICK_S
    c = cupy.asarray(a)  # CuPy orders after stream 1
    assert float(c.sum()) == 2.0 * N


def test_host_reads_wait_for_that_array_only(busy_stream: Any) -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    a = cubridge.zeros(1024, "float32")
    cubridge.fill(a, 5.0, stream=s)
    t0 = time.perf_counter()
    assert a.to_numpy().tolist() == [5.0] * 1024  # waits for a's event, not the device
    assert time.perf_counter() - t0 < QUICK_S
    assert not busy_stream.query()


def test_arrays_used_on_other_streams_are_freed_safely(busy_stream: Any) -> None:
    s = cupy.cuda.Stream(non_blocking=True)
    t0 = time.perf_counter()
    for i in range(20):
        a = cubridge.full(N, float(i), "float32", stream=s)
        b = cubridge.mul(a, a, stream=s)  # a new result from the pool, on s
        del a  # freed on the default stream after s's event: no reuse while s reads
        c = cubridge.empty(N, "float32")  # may reuse a's block, ordered after s
        cubridge.fill(c, -1.0, stream=s)
        assert cubridge.sum(b, stream=s) == float(i * i) * N
        del b, c
    assert time.perf_counter() - t0 < 20 * QUICK_S
    assert not busy_stream.query()


def test_the_pool_reuses_blocks() -> None:
    x = cubridge.full(1 << 20, 1.0, "float32")
    r = cubridge.add(x, x)
    del r
    gc.collect()
    before = cubridge.memory_stats()
    for _ in range(200):
        r = cubridge.add(x, x)  # new result each time: a pool block, no cudaMalloc
        del r
    after = cubridge.memory_stats()
    assert after["alloc_count"] - before["alloc_count"] == 200
    assert after["free_count"] - before["free_count"] == 200
    assert after["in_use_bytes"] == before["in_use_bytes"]
    assert after["reserved_bytes"] <= before["reserved_bytes"] + (8 << 20)
    cubridge.empty_cache()
    assert cubridge.memory_stats()["reserved_bytes"] <= after["reserved_bytes"]


# Streams of cubridge's own (cubridge.Stream): an Array's uses there record no event
# until something needs one (array.h, lazy_stream). In each test the stream first
# spins for about 0.1 s, so a reader that is not ordered after the write reads zeros.


def write_late_on(s: cubridge.Stream, x: Any, value: float) -> None:
    """Queues a long spin on s, then fills x with value there."""
    with torch.cuda.stream(torch.cuda.ExternalStream(s.handle)):
        torch.cuda._sleep(SLEEP_CYCLES // 10)
    cubridge.fill(x, value, stream=s)


def own_stream_array(s: cubridge.Stream) -> Any:
    x = cubridge.zeros(N, "float32", stream=s)
    s.synchronize()
    return x


def test_own_stream_writes_are_ordered_for_a_torch_stream(cai_only: Any) -> None:
    warm_up_kernels(cai_only)
    s = cubridge.Stream()
    x = own_stream_array(s)
    write_late_on(s, x, 7.0)
    c = torch.cuda.Stream()  # not blocking: only the event can order it
    with torch.cuda.stream(c):
        total = torch.from_dlpack(x).sum()  # __dlpack__(stream=c): records s's event first
    c.synchronize()
    assert float(total) == 7.0 * N


def test_own_stream_writes_are_ordered_for_another_own_stream(cai_only: Any) -> None:
    warm_up_kernels(cai_only)
    s, t = cubridge.Stream(), cubridge.Stream()
    x = own_stream_array(s)
    y = own_stream_array(t)
    write_late_on(s, x, 7.0)
    cubridge.add(x, y, out=y, stream=t)  # t waits for x's write on s
    t.synchronize()
    assert float(y.to_numpy()[0]) == 7.0


def test_own_stream_writes_reach_the_host(cai_only: Any) -> None:
    warm_up_kernels(cai_only)
    s = cubridge.Stream()
    x = own_stream_array(s)
    write_late_on(s, x, 7.0)
    assert x.to_numpy()[-1] == 7.0  # the host waits for s's event


def test_own_stream_results_go_back_to_that_streams_cache() -> None:
    s = cubridge.Stream()
    a = cubridge.full(1000, 1.0, "float32", stream=s)
    r = cubridge.add(a, a, stream=s)
    cached = cubridge.memory_stats()["cached_bytes"]
    del r  # freed on s, where it was used: kept for s's next allocation
    assert cubridge.memory_stats()["cached_bytes"] == cached + 4096
    r = cubridge.add(a, a, stream=s)  # served from the cache
    assert cubridge.memory_stats()["cached_bytes"] == cached
    assert float(cubridge.sum(r, stream=s)) == 2000.0


def test_closing_an_own_stream_waits_for_its_work(cai_only: Any) -> None:
    warm_up_kernels(cai_only)
    s = cubridge.Stream()
    x = own_stream_array(s)
    write_late_on(s, x, 7.0)
    s.close()  # x's write there has no event: closing waits for it
    c = torch.cuda.Stream()
    with torch.cuda.stream(c):
        total = torch.from_dlpack(x).sum()
    c.synchronize()
    assert float(total) == 7.0 * N
    del x  # freed on the default stream: s is gone
    gc.collect()


def test_a_result_made_on_a_closed_own_stream_stays_usable(cai_only: Any) -> None:
    # y's one write was on s and no event covers it: closing s waited for it, so every
    # later use (the host, an op, both exports, a copy) needs no wait at all.
    warm_up_kernels(cai_only)
    x = cubridge.full(N, 1.0, "float32")
    with cubridge.Stream() as s:
        y = cubridge.add(x, x, stream=s)
    assert y.to_numpy()[[0, -1]].tolist() == [2.0, 2.0]
    assert float(cubridge.sum(cubridge.add(y, y))) == 4.0 * N
    assert float(torch.from_dlpack(y).sum()) == 2.0 * N
    assert float(cupy.asarray(y).sum()) == 2.0 * N
    assert y.copy().to_numpy()[0] == 2.0


def test_a_write_waits_for_reads_on_other_streams(cai_only: Any) -> None:
    # a is read on r behind a spin, then written on s: the write must not overtake the
    # read (y would hold 10.0, the new a doubled, instead of 2.0). Nothing touches the
    # default stream, whose events would order every stream of ours by themselves.
    warm_up_kernels(cai_only)
    s, r = cubridge.Stream(), cubridge.Stream()
    a = cubridge.full(N, 1.0, "float32", stream=s)
    y = cubridge.zeros(N, "float32", stream=r)
    s.synchronize()
    r.synchronize()
    spin_on(torch.cuda.ExternalStream(r.handle))
    cubridge.add(a, a, out=y, stream=r)
    cubridge.fill(a, 5.0, stream=s)
    r.synchronize()
    assert y.to_numpy()[[0, -1]].tolist() == [2.0, 2.0]
    assert a.to_numpy()[[0, -1]].tolist() == [5.0, 5.0]


def test_a_graph_launch_waits_for_reads_on_other_streams(cai_only: Any) -> None:
    # The same for a graph that writes a: its launch on s waits for a's read on r.
    warm_up_kernels(cai_only)
    s, r = cubridge.Stream(), cubridge.Stream()
    a = cubridge.full(N, 1.0, "float32")
    y = cubridge.empty(N, "float32")
    with s.capture() as g:
        cubridge.add(a, a, out=a, stream=s)
    g.launch(stream=s)  # a = 2
    s.synchronize()
    spin_on(torch.cuda.ExternalStream(r.handle))
    cubridge.add(a, a, out=y, stream=r)  # 4, read behind the spin
    g.launch(stream=s)  # a = 4, after that read
    r.synchronize()
    assert y.to_numpy()[[0, -1]].tolist() == [4.0, 4.0]
    assert a.to_numpy()[[0, -1]].tolist() == [4.0, 4.0]


def test_a_collected_own_stream_waits_for_its_work() -> None:
    # As close() does. x's last use, a mul on s behind a spin, has no event; once s is
    # gone x is parked behind its older event (from t, done), and the next result of
    # its size on u takes the block: without the wait the mul lands on that result.
    t, u = torch.cuda.Stream(), torch.cuda.Stream()
    one = torch.ones(N, device="cuda")
    for spin in (False, True):  # the first pass loads every kernel's module
        torch.cuda.synchronize()
        with torch.cuda.stream(t):
            x = cubridge.add(one, one)  # 2.0, its event recorded on t
        t.synchronize()
        s = cubridge.Stream()
        if spin:
            spin_on(torch.cuda.ExternalStream(s.handle))
        cubridge.mul(x, x, out=x, stream=s)
        assert sys.getrefcount(s) == 2, "something else holds s: del would not destroy it"
        del s
        del x
        with torch.cuda.stream(u):
            z = cubridge.add(one, one)  # 2.0; 4.0 if the mul wrote after it
        torch.cuda.synchronize()
        assert z.to_numpy()[[0, -1]].tolist() == [2.0, 2.0]


def test_a_copy_is_a_use_of_its_source() -> None:
    # x.copy() reads x on the default stream, queued behind a spin there; x, freed
    # meanwhile, must not be parked behind its own event (done) for the next result on
    # another stream to overwrite before the copy has read it.
    s, t = torch.cuda.Stream(), torch.cuda.Stream()
    a = torch.full((N,), 3.0, device="cuda")
    one = torch.ones(N, device="cuda")
    for spin in (False, True):  # the first pass loads every kernel's module
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            x = cubridge.add(a, a)  # 6.0, written on s
        s.synchronize()
        if spin:
            spin_on(torch.cuda.default_stream())
        y = x.copy()
        del x
        with torch.cuda.stream(t):
            z = cubridge.add(one, one)  # 2.0, the size x had
        torch.cuda.synchronize()
        assert y.to_numpy()[[0, -1]].tolist() == [6.0, 6.0]
        assert z.to_numpy()[[0, -1]].tolist() == [2.0, 2.0]


def test_managed_memory_gets_the_pools_cached_blocks() -> None:
    # Freed device memory stays in the pool; a managed allocation larger than what is
    # left free makes the caches go back to the driver before it fails.
    cubridge.empty_cache()
    free, _ = cubridge.mem_info()
    n = int(free * 0.6) // 4
    a = cubridge.empty(n, "float32")
    del a
    assert cubridge.mem_info()[0] < free * 0.5, "the pool did not keep the freed block"
    m = cubridge.empty(n, "float32", memory="managed")
    assert m.memory == "managed" and m.size == n
    del m
    cubridge.empty_cache()


# Foreign producers' streams. Without stream= an op runs on the stream its first array
# names (torch's current stream, the one a CUDA array interface names). On another
# stream (stream=0 here) it is ordered after that producer's stream
# (as torch's __dlpack__(stream=) would order a tensor), and the producer's stream after
# the op, so its next kernels see what the op wrote. Each body runs once without the
# spin first: a kernel's first launch loads its module and waits for the device, which
# would order the streams by itself.


def spin_on(stream: Any) -> None:
    """Queues about 0.1 s of spinning on a torch stream."""
    with torch.cuda.stream(stream):
        torch.cuda._sleep(SLEEP_CYCLES // 10)


@pytest.mark.parametrize("stream", [None, 0], ids=["torchs_stream", "default_stream"])
def test_torch_current_stream_is_ordered_before_an_op(stream: Any) -> None:
    s = torch.cuda.Stream()  # not blocking: only an event orders the default stream after it
    for spin in (False, True):
        with torch.cuda.stream(s):
            x = torch.zeros(N, device="cuda")
            y = torch.zeros_like(x)
            if spin:
                spin_on(s)
            x.fill_(7.0)  # late on s
            cubridge.add(x, x, out=y, stream=stream)  # after s's fill
            z = cubridge.add(x, x)  # a new result, on s after its fill
        cubridge.synchronize()
        assert y[[0, -1]].tolist() == [14.0, 14.0]
        assert z.to_numpy()[[0, -1]].tolist() == [14.0, 14.0]


@pytest.mark.parametrize("stream", [None, 0], ids=["torchs_stream", "default_stream"])
def test_an_op_is_ordered_before_torchs_current_stream(stream: Any) -> None:
    s = torch.cuda.Stream()
    for spin in (False, True):
        with torch.cuda.stream(s):
            x = torch.full((N,), 3.0, device="cuda")
            y = torch.zeros_like(x)
        s.synchronize()
        if spin:
            spin_on(torch.cuda.default_stream())  # stream=0: the op starts late
        with torch.cuda.stream(s):
            cubridge.add(x, x, out=y, stream=stream)
            z = y + 1  # on s: after the op
        s.synchronize()
        assert z[[0, -1]].tolist() == [7.0, 7.0]


@pytest.mark.parametrize("stream", [None, 0], ids=["its_stream", "default_stream"])
def test_an_op_is_ordered_before_the_stream_a_cai_names(cai_only: Any, stream: Any) -> None:
    p = cupy.cuda.Stream(non_blocking=True)
    for spin in (False, True):
        with p:
            x = cupy.full(N, 3.0, dtype=cupy.float32)
            y = cupy.zeros_like(x)
        p.synchronize()
        if spin:
            spin_on(torch.cuda.default_stream())
        with p:  # the interfaces name p
            cubridge.add(cai_only(x), cai_only(x), out=cai_only(y), stream=stream)
            z = y + 1  # on p: after the op
        p.synchronize()
        assert z[[0, -1]].tolist() == [7.0, 7.0]


def test_an_op_without_a_stream_runs_on_torchs_current_stream() -> None:
    # Were it on the default stream, that stream would wait for s's spin (one event).
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.full((N,), 3.0, device="cuda")
        y = torch.zeros_like(x)
        cubridge.add(x, x, out=y)  # loads the kernel's module
    s.synchronize()
    with torch.cuda.stream(s):
        spin_on(s)
        cubridge.add(x, x, out=y)
        total = cubridge.sum(x)  # on s, after the spin
    assert total == 3.0 * N
    spin_on(s)
    with torch.cuda.stream(s):
        cubridge.add(x, x, out=y)
        z = cubridge.mul(x, x)  # a new result, allocated and written on s
    assert torch.cuda.default_stream().query(), "the default stream waited for torch's stream"
    assert not s.query(), "the op did not queue on torch's stream"
    assert z.to_numpy()[[0, -1]].tolist() == [9.0, 9.0]  # waits for that write only
    s.synchronize()
    assert y[[0, -1]].tolist() == [6.0, 6.0]


def test_a_parked_block_waits_for_its_last_use() -> None:
    # A result freed while its write on s is still queued is parked behind its event;
    # the next result of its size, on another stream t, takes the same block after it.
    s, t = torch.cuda.Stream(), torch.cuda.Stream()
    x = torch.full((N,), 3.0, device="cuda")
    one = torch.ones(N, device="cuda")
    with torch.cuda.stream(s):
        cubridge.add(x, x)  # loads the kernel's module
    torch.cuda.synchronize()
    spin_on(s)
    with torch.cuda.stream(s):
        z = cubridge.add(x, x)  # 6.0, written after the spin
    del z
    parked = cubridge.memory_stats()
    with torch.cuda.stream(t):
        y = cubridge.add(one, one)  # 2.0: after z's write, or z's write lands on it
    taken = cubridge.memory_stats()
    assert parked["cached_bytes"] - taken["cached_bytes"] == 4 * N, "no parked block was taken"
    assert taken["in_use_bytes"] - parked["in_use_bytes"] == 4 * N
    s.synchronize()
    assert y.to_numpy()[[0, -1]].tolist() == [2.0, 2.0]


def test_parked_blocks_count_as_cached_until_empty_cache() -> None:
    s = torch.cuda.Stream()
    x = torch.ones(N, device="cuda")
    torch.cuda.synchronize()
    cubridge.empty_cache()
    before = cubridge.memory_stats()
    with torch.cuda.stream(s):
        z = cubridge.add(x, x)
    s.synchronize()
    del z
    parked = cubridge.memory_stats()
    assert parked["in_use_bytes"] == before["in_use_bytes"]
    assert parked["cached_bytes"] >= before["cached_bytes"] + 4 * N
    cubridge.empty_cache()
    assert cubridge.memory_stats()["cached_bytes"] == 0


def test_an_op_without_a_stream_runs_on_the_stream_a_cai_names(cai_only: Any) -> None:
    p = cupy.cuda.Stream(non_blocking=True)
    with p:
        x = cupy.full(N, 3.0, dtype=cupy.float32)
        y = cupy.zeros_like(x)
        cubridge.add(cai_only(x), cai_only(x), out=cai_only(y))
    p.synchronize()
    with p:
        spin_on(torch.cuda.ExternalStream(p.ptr))
        cubridge.add(cai_only(x), cai_only(x), out=cai_only(y))
    assert torch.cuda.default_stream().query(), "the default stream waited for CuPy's stream"
    assert not p.done, "the op did not queue on the stream the interface names"
    p.synchronize()
    assert y[[0, -1]].tolist() == [6.0, 6.0]


def test_torch_without_the_exchange_table_is_ordered_the_same(child: Any) -> None:
    # A torch older than 2.10 has no C exchange table: the tensor's attributes and
    # torch.cuda.current_stream say the same. The table is removed in a child process.
    r = child(
        f"""
import torch, cubridge
if "__dlpack_c_exchange_api__" not in vars(torch.Tensor):
    raise SystemExit("torch defines its exchange table where it cannot be removed")
del torch.Tensor.__dlpack_c_exchange_api__
s = torch.cuda.Stream()
for spin in (False, True):
    with torch.cuda.stream(s):
        x = torch.zeros({N}, device="cuda")
        if spin:
            torch.cuda._sleep({SLEEP_CYCLES // 10})
        x.fill_(7.0)
        y = cubridge.add(x, x)
    cubridge.synchronize()
print(cubridge._native._fast_paths()["torch_exchange"], y.to_numpy()[-1])
"""
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "14.0"]


def test_reduction_scratch_stays_bounded_as_streams_come_and_go() -> None:
    # Each stream that reduces gets scratch (33 KB of device memory and a pinned result
    # slot). Past a limit per device a new stream takes over the entry used longest ago,
    # and a closed cubridge.Stream leaves its entry to the next one. 1000 CuPy streams,
    # each its own handle (torch hands out streams from a pool of 32), alive throughout:
    # CUDA keeps memory of its own for streams, even destroyed ones, so only what the
    # reductions add is measured.
    ones = cubridge.full(1000, 1.0, "float32")
    twos = cubridge.full(1000, 2.0, "float32")
    junk = cubridge.empty(1000, "float32")
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(1000)]
    assert len({s.ptr for s in streams}) == 1000
    for s in streams:
        cubridge.fill(junk, 0.0, stream=s.ptr)  # each stream has run a kernel
    cubridge.synchronize()
    cubridge.empty_cache()
    free = cubridge.mem_info()[0]
    for _ in range(2):  # the second round: each stream's entry was handed on meanwhile
        for i, s in enumerate(streams):
            x, want = (ones, 1000.0) if i % 2 else (twos, 2000.0)
            assert cubridge.sum(x, stream=s.ptr) == want, f"stream {i}"
    cubridge.empty_cache()
    grown = free - cubridge.mem_info()[0]
    assert grown < 12 << 20, f"{grown} bytes of device memory more after 1000 streams reduced"

    def reduce_on_own_streams(k: int, results: list) -> None:
        own = [cubridge.Stream() for _ in range(100)]
        results[k] = [
            float(cubridge.sum(ones if j % 2 else twos, stream=s)) for j, s in enumerate(own)
        ]
        for s in own:
            s.close()  # its entry goes to the next new stream

    for _ in range(3):  # four threads at once, taking entries over from each other
        results: list = [None] * 4
        threads = [
            threading.Thread(target=reduce_on_own_streams, args=(k, results)) for k in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [[2000.0, 1000.0] * 50] * 4
