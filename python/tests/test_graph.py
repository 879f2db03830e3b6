"""cubridge.Stream and cubridge.Graph: streams of cubridge's own, and the CUDA graphs
they record. The stream tests run on both backends; the recording tests need the
CUDA backend and skip without it, saying so."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import cubridge

on_cuda = cubridge.backend() == "cuda"
needs_cuda = pytest.mark.skipif(
    not on_cuda, reason=f"graphs need the CUDA backend (this run: {cubridge.backend()})"
)


def test_stream_runs_ops_in_order() -> None:
    with cubridge.Stream() as s:
        x = cubridge.full(1000, 1.0)
        for _ in range(5):
            cubridge.add(x, x, out=x, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(x.to_numpy(), np.full(1000, 32.0, np.float32))


def test_stream_query_tells_whether_its_work_is_done() -> None:
    with cubridge.Stream() as s:
        x = cubridge.full(1 << 22, 1.0)
        for _ in range(8):
            cubridge.add(x, x, out=x, stream=s)
        now = s.query()
        assert now is True or (on_cuda and now is False), "the CPU backend's ops are done on return"
        s.synchronize()
        assert s.query() is True
        assert float(cubridge.max(x, stream=s)) == 256.0
    with pytest.raises(ValueError, match="is closed"):
        s.query()


def test_stream_says_what_it_is() -> None:
    s = cubridge.Stream()
    assert s.device == 0
    assert s.__cuda_stream__() == (0, s.handle)
    assert (s.handle != 0) == on_cuda, "a cudaStream_t on CUDA, 0 on the CPU backend"
    assert "cubridge.Stream device=0" in repr(s)
    s.close()
    s.close()  # twice is fine
    assert "closed" in repr(s)
    with pytest.raises(ValueError, match="the cubridge stream is closed"):
        s.handle
    with pytest.raises(ValueError, match="the cubridge stream is closed"):
        cubridge.add(np.ones(3), np.ones(3), stream=s)
    with pytest.raises(ValueError, match="is closed"):
        s.synchronize()


def test_a_stream_subclass_is_read_through_its_protocol() -> None:
    class Named(cubridge.Stream):
        __slots__ = ()

    s = Named()
    x = cubridge.full(4, 1.0)
    cubridge.add(x, x, out=x, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(x.to_numpy(), np.full(4, 2.0, np.float32))
    s.close()
    with pytest.raises(ValueError, match="the cubridge stream is closed"):
        cubridge.add(x, x, out=x, stream=s)


def test_stream_type_registration_checks_its_argument() -> None:
    with pytest.raises(TypeError, match="type must be a class, got int"):
        cubridge._native._stream_type(3)


def test_stream_bad_device() -> None:
    with pytest.raises(cubridge.InvalidArgumentError, match="device"):
        cubridge.Stream(device=1 << 20)


def test_native_functions_check_their_capsules() -> None:
    with pytest.raises(TypeError, match="stream must be a cubridge stream, got int"):
        cubridge._native._stream_synchronize(3)
    with pytest.raises(TypeError, match="graph must be a graph, got Stream"):
        cubridge._native._graph_launch(cubridge.Stream(), [], None)


def test_empty_graph_cannot_launch() -> None:
    g = cubridge.Graph()
    with pytest.raises(ValueError, match="holds no recording"):
        g.launch()
    g.close()
    assert repr(g) == "<cubridge.Graph empty>"


@pytest.mark.skipif(on_cuda, reason="CPU backend only (this run uses CUDA)")
def test_capture_needs_cuda() -> None:
    s = cubridge.Stream()
    with pytest.raises(cubridge.NoDeviceError, match="graphs need the CUDA backend"):
        with s.capture():
            pass
    # Nothing is left recording: the stream still runs ops.
    x = cubridge.full(3, 1.0)
    cubridge.add(x, x, out=x, stream=s)
    assert x.to_numpy().tolist() == [2.0, 2.0, 2.0]


@needs_cuda
def test_graph_replays_what_it_recorded() -> None:
    s = cubridge.Stream()
    a, b = cubridge.full(1000, 1.0), cubridge.full(1000, 2.0)
    c = cubridge.zeros(1000)
    with s.capture() as g:
        cubridge.add(c, a, out=c, stream=s)
        cubridge.mul(c, b, out=c, stream=s)
    assert c.to_numpy().sum() == 0.0, "recorded, not run"
    for _ in range(3):
        g.launch()
    # ((0 + 1) * 2 + 1) * 2 ... three times: 2, 6, 14.
    np.testing.assert_array_equal(c.to_numpy(), np.full(1000, 14.0, np.float32))
    g.launch(stream=s)
    s.synchronize()
    assert float(cubridge.sum(c)) == 30.0 * 1000
    g.close()
    with pytest.raises(ValueError, match="the graph is closed"):
        g.launch()


@needs_cuda
def test_graph_keeps_its_arrays_alive() -> None:
    s = cubridge.Stream()
    a = cubridge.full(1000, 1.0)
    refs = sys.getrefcount(a)
    with s.capture() as g:
        cubridge.scale(a, 3.0, out=a, stream=s)
        cubridge.scale(a, 1.0, out=a, stream=s)
    assert sys.getrefcount(a) == refs + 1, "the Graph holds the recorded Array once"
    g.launch()
    assert float(cubridge.sum(a)) == 3000.0
    in_use = cubridge.memory_stats()["in_use_bytes"]
    del a
    gc.collect()
    assert cubridge.memory_stats()["in_use_bytes"] == in_use, "still held by the Graph"
    g.launch()
    g.close()
    gc.collect()
    assert cubridge.memory_stats()["in_use_bytes"] == in_use - 4000, "closing the Graph lets it go"


@needs_cuda
def test_arrays_freed_while_recording_are_freed_when_it_ends() -> None:
    # Freed at once, their memory would go on the default stream (a block beyond the
    # cache) or into the recording (one last used on its stream): either ends the
    # recording with an error. It waits for the recording's end instead.
    s = cubridge.Stream()
    a = cubridge.full(1000, 1.0)
    big = cubridge.zeros(16 << 20, "float32")  # 64 MiB
    on_s = cubridge.add(a, a, stream=s)
    s.synchronize()
    gc.collect()  # older garbage goes now, not inside the block
    in_use = cubridge.memory_stats()["in_use_bytes"]
    with s.capture() as g:
        cubridge.add(a, a, out=a, stream=s)
        del big, on_s
        gc.collect()
        assert cubridge.memory_stats()["in_use_bytes"] == in_use, "not freed during the recording"
    assert cubridge.memory_stats()["in_use_bytes"] == in_use - (64 << 20) - 4000
    g.launch(stream=s)
    s.synchronize()
    assert a.to_numpy()[[0, -1]].tolist() == [2.0, 2.0]


@needs_cuda
def test_recording_refuses_a_new_result() -> None:
    s = cubridge.Stream()
    a = cubridge.full(10, 1.0)
    with pytest.raises(cubridge.InvalidArgumentError, match="recording a graph.*pass out="):
        with s.capture():
            cubridge.add(a, a, stream=s)
    # The stream runs normally again.
    assert float(cubridge.sum(cubridge.add(a, a, stream=s), stream=s)) == 20.0


@needs_cuda
def test_recording_fails_on_host_work_and_names_it_at_the_end() -> None:
    s = cubridge.Stream()
    a = cubridge.full(10, 1.0)
    rec = s.capture()
    with pytest.raises(cubridge.Error):
        with rec as g:
            cubridge.sum(a, stream=s)
    with pytest.raises(ValueError, match="holds no recording"):
        g.launch()
    assert float(cubridge.sum(a, stream=s)) == 10.0


@needs_cuda
def test_an_exception_in_the_block_goes_on() -> None:
    s = cubridge.Stream()
    a = cubridge.full(10, 1.0)
    with pytest.raises(KeyError):
        with s.capture() as g:
            cubridge.scale(a, 2.0, out=a, stream=s)
            raise KeyError("mine")
    with pytest.raises(ValueError, match="holds no recording"):
        g.launch()
    assert float(cubridge.sum(a)) == 10.0, "the recorded scale never ran"


@needs_cuda
def test_one_recording_at_a_time() -> None:
    s, t = cubridge.Stream(), cubridge.Stream()
    with s.capture():
        with pytest.raises(cubridge.InvalidArgumentError, match="another cubridge.Stream"):
            with t.capture():
                pass
        with pytest.raises(cubridge.InvalidArgumentError, match="end the capture before"):
            s.close()
    with pytest.raises(cubridge.InvalidArgumentError, match="not recording"):
        cubridge._native._stream_end_capture(s._capsule)


@needs_cuda
@pytest.mark.parametrize("explicit", [True, False], ids=["stream_given", "no_stream"])
def test_ops_record_into_a_torch_graph(explicit: bool) -> None:
    # Without stream= an op on torch tensors runs on torch's current stream: the
    # capturing one inside torch.cuda.graph.
    torch = pytest.importorskip("torch", reason="torch is not installed")

    def current() -> dict:
        return {"stream": torch.cuda.current_stream()} if explicit else {}

    x = torch.ones(1000, device="cuda")
    y = torch.zeros(1000, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # torch warms up on a side stream before capturing
        cubridge.add(x, y, out=y, **current())
    torch.cuda.current_stream().wait_stream(side)
    y.zero_()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        cubridge.add(x, y, out=y, **current())
        # A new result's memory would belong to torch's graph.
        with pytest.raises(cubridge.InvalidArgumentError, match="recording a graph"):
            cubridge.add(x, y, **current())
    assert float(y.sum()) == 0.0  # recorded, not run
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    assert float(y.sum()) == 3000.0
