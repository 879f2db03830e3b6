"""Streams of cubridge's own and the CUDA graphs they record: :class:`Stream`, :class:`Graph`.

A :class:`Graph` replays every op recorded on a stream for the cost of one launch, so a
chain of small ops costs far less than one launch each::

    s = cubridge.Stream()
    with s.capture() as g:               # records instead of running
        cubridge.add(a, b, out=c, stream=s)
        cubridge.mul(c, c, out=c, stream=s)
    for _ in range(100):
        g.launch()                       # both ops, one launch (default stream)

What a recording may hold: asynchronous ops on the recording stream with ``out=`` arrays
(and fill, copyto, axpy, scale) on device memory. Whatever returns to the host
(``sum``, host arrays, ``synchronize``), a new result (its memory would belong to the
graph) or work on the default stream while recording makes the recording fail, with
the error named when the ``with`` block ends. A Graph replays the arrays and sizes it
was recorded with and keeps those arrays alive; at each launch the cubridge Arrays
among them are ordered like an op's arguments. One recording at a time per process;
CUDA backend only (:class:`NoDeviceError` otherwise).

Ops called with ``stream=`` a torch or CuPy stream that is recording their own graph
(``torch.cuda.graph``, CuPy's ``Stream.begin_capture``) are recorded there the same way.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Optional

from . import _native

__all__ = ["Graph", "Stream"]


class Stream:
    """A CUDA stream created by cubridge: ops given ``stream=s`` run on it in order.

    It speaks the CUDA stream protocol (``__cuda_stream__``), so torch and CuPy can use
    it too (``torch.cuda.ExternalStream(s.handle)``). Close it with :meth:`close` or a
    ``with`` block; an unreachable Stream is closed when collected. On the CPU backend a
    Stream exists but every op completes before it returns.

    >>> import cubridge
    >>> with cubridge.Stream() as s:
    ...     x = cubridge.full(3, 1.0)
    ...     _ = cubridge.add(x, x, out=x, stream=s)
    ...     s.synchronize()
    ...     x.to_numpy()
    array([2., 2., 2.], dtype=float32)
    """

    __slots__ = ("_capsule", "_handle", "_device")

    def __init__(self, device: Optional[int] = None) -> None:
        """A new stream on ``device`` (None: the current device)."""
        self._capsule = _native._stream_create(-1 if device is None else int(device))
        self._handle: Optional[int]
        self._handle, self._device = _native._stream_info(self._capsule)

    @property
    def handle(self) -> int:
        """The ``cudaStream_t`` as an int (0 on the CPU backend)."""
        return self._open_handle()

    @property
    def device(self) -> int:
        """The device the stream belongs to."""
        return self._device

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self._open_handle())

    def synchronize(self) -> None:
        """Waits until every op queued on the stream has finished."""
        _native._stream_synchronize(self._capsule)

    def query(self) -> bool:
        """True when every op queued on the stream so far has finished; never waits.
        (Polling it with a deadline is how a rank tells a hung collective:
        :meth:`cubridge.Comm.abort`.)"""
        return _native._stream_query(self._capsule)

    def capture(self) -> _Recording:
        """Records the ops given ``stream=`` this stream in a ``with`` block into a :class:`Graph`.

        ``with s.capture() as g:`` gives the Graph at once; it can be launched after
        the block. If the block raises, or the recording fails (an op that returns to
        the host, a new result), the block's exception or the recording's error is
        raised and the Graph stays empty.
        """
        return _Recording(self)

    def close(self) -> None:
        """Waits for the stream's queued work, then destroys it. Closing twice is fine."""
        _native._stream_close(self._capsule)
        self._handle = None

    def _check_open(self) -> None:
        self._open_handle()

    def _open_handle(self) -> int:
        if self._handle is None:
            raise ValueError("the cubridge stream is closed")
        return self._handle

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"handle=0x{self._handle:x}"
        return f"<cubridge.Stream device={self._device} {state}>"


# Ops read a Stream's handle from its _handle slot (None once closed) instead of
# calling __cuda_stream__: the Python-level call cost 0.25-0.6 us per op.
_native._stream_type(Stream)


class Graph:
    """Ops recorded on a :class:`Stream` (:meth:`Stream.capture`), replayed by :meth:`launch`.

    Each launch runs every recorded op, with the arrays and sizes it was recorded with,
    for the cost of one launch. Close it with :meth:`close` or a ``with`` block; an
    unreachable Graph is destroyed when collected.
    """

    __slots__ = ("_capsule", "_used")

    def __init__(self) -> None:
        self._capsule: Any = None
        self._used: list[Any] = []

    def launch(self, stream: Any = None) -> None:
        """Runs the recording once on ``stream`` (None: the default stream), asynchronously."""
        if self._capsule is None:
            raise ValueError("the graph holds no recording (its capture failed or has not ended)")
        _native._graph_launch(self._capsule, self._used, stream)

    def close(self) -> None:
        """Destroys the graph; launches already queued still run. Closing twice is fine."""
        if self._capsule is not None:
            _native._graph_close(self._capsule)
        self._used = []

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<cubridge.Graph empty>" if self._capsule is None else "<cubridge.Graph>"


class _Recording:
    """The context manager of :meth:`Stream.capture`."""

    __slots__ = ("_stream", "_graph")

    def __init__(self, stream: Stream) -> None:
        self._stream = stream
        self._graph = Graph()

    def __enter__(self) -> Graph:
        _native._stream_begin_capture(self._stream._capsule)
        return self._graph

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            capsule, used = _native._stream_end_capture(self._stream._capsule)
        except _native.Error:
            if exc is None:
                raise
            return  # the block's own exception goes on
        if exc is not None:
            _native._graph_close(capsule)
            return
        self._graph._capsule, self._graph._used = capsule, used
