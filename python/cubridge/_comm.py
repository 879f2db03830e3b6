"""NCCL collectives over several GPUs: :class:`Comm`.

One process can drive every local GPU (``Comm()`` or ``Comm(devices=[0, 1])``: one
rank per device, arrays passed as a list with one array per device), or each process
can be one rank of a communicator joined through a unique id
(``Comm.join(unique_id, rank, size, device)``: one array per call). Arrays may come
from any library (cubridge, CuPy, torch, JAX: DLPack or the CUDA array interface) and
must live on their rank's device.

NCCL is optional: ``pip install cubridge-cu13[nccl]`` installs the ``nvidia-nccl-cu13``
wheel (``cubridge-cu12[nccl]``: ``nvidia-nccl-cu12``), found here the way torch and CuPy find their NVIDIA libraries
(``site-packages/nvidia/nccl/lib/libnccl.so.2``); ``CUBRIDGE_NCCL_LIBRARY`` or the
loader's search path also work. Without it, or on the CPU backend, making a
:class:`Comm` raises with a message saying so.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from typing import Any, Sequence

from . import _native

__all__ = ["Comm"]

_OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}
_ALL_REDUCE, _BROADCAST, _REDUCE_SCATTER, _ALL_GATHER = range(4)  # cubridge_collective
_RUN, _CHECK, _QUEUE, _MARK = range(4)  # _comm_collective's modes (comm.c)
_looked_for_wheel = False


def _wheel_library() -> str | None:
    """libnccl.so.2 of an installed nvidia-nccl-cu13 wheel, if any."""
    dirs: list[str] = []
    try:
        spec = importlib.util.find_spec("nvidia.nccl")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        dirs.extend(spec.submodule_search_locations)
    dirs.extend(os.path.join(p, "nvidia", "nccl") for p in sys.path if p)
    for d in dirs:
        path = os.path.join(d, "lib", "libnccl.so.2")
        if os.path.isfile(path):
            return path
    return None


def _find_nccl() -> None:
    global _looked_for_wheel
    if not _looked_for_wheel:
        _looked_for_wheel = True
        path = _wheel_library()
        if path is not None:
            _native._nccl_set_library_path(path)


def _op_code(op: str) -> int:
    try:
        return _OPS[op]
    except (KeyError, TypeError):
        raise ValueError(f"op must be one of {', '.join(_OPS)}; got {op!r}") from None


def _end_each(comms: list[Any], end: Any) -> None:
    """Destroys or aborts every rank's comm, then raises the first error."""
    errors = []
    for c in comms:
        try:
            end(c)
        except Exception as e:  # keep ending the others
            errors.append(e)
    if errors:
        raise errors[0]


class Comm:
    """An NCCL communicator over GPUs: ``all_reduce``, ``broadcast``,
    ``reduce_scatter`` and ``all_gather`` on arrays of any library.

    ``Comm(devices=None)`` makes one rank per local device (every visible device by
    default) in this process; each collective then takes a list with one array per
    device, in the order of ``devices``, and launches them together (an NCCL group).
    ``Comm.join(unique_id, rank, size, device=None)`` joins a communicator of several
    processes; its collectives take one array. Collectives are asynchronous on
    ``stream`` (None: each device's default stream; else one stream, or one per
    device), like any other op.

    Use it as a context manager or call :meth:`close`.
    """

    def __init__(self, devices: Sequence[int] | None = None) -> None:
        self._comms: list[Any] = []
        self._lock = threading.Lock()  # one collective (all its ranks) or close at a time
        _find_nccl()
        if devices is None:
            devices = list(range(max(_native.device_count(), 1)))
        devices = [int(d) for d in devices]
        if not devices:
            raise ValueError("devices must list at least one device")
        if len(set(devices)) != len(devices):
            raise ValueError(f"devices must be distinct; got {devices}")
        self._comms = _native._comm_init_all(devices)
        self._devices = devices
        self._rank0, self._size = 0, len(devices)

    @classmethod
    def join(cls, unique_id: bytes, rank: int, size: int, device: int | None = None) -> "Comm":
        """Joins rank ``rank`` of ``size`` of the communicator named by ``unique_id``
        (made by one process with :meth:`unique_id` and sent to the others), on
        ``device`` (None: the current device). Returns when every rank has joined."""
        if not isinstance(unique_id, (bytes, bytearray)):
            raise TypeError(f"unique_id must be bytes, got {type(unique_id).__name__}")
        size, rank = int(size), int(rank)
        if size < 1:
            raise ValueError(f"size must be at least 1; got {size}")
        if not 0 <= rank < size:
            raise ValueError(f"rank must be in [0, {size}); got {rank}")
        _find_nccl()
        self = cls.__new__(cls)
        self._comms = []
        self._lock = threading.Lock()
        comm = _native._comm_init_rank(bytes(unique_id), size, rank, -1 if device is None else int(device))
        self._comms = [comm]
        r, n, d = _native._comm_info(comm)
        self._devices, self._rank0, self._size = [d], r, n
        return self

    @staticmethod
    def nccl_version() -> tuple[int, int, int]:
        """The NCCL version cubridge loads, e.g. ``(2, 28, 9)``.

        Raises :class:`cubridge.DriverError` ("NCCL not available: ...") without NCCL.
        """
        _find_nccl()
        code = _native._nccl_version()
        return (code // 10000, code // 100 % 100, code % 100)

    @staticmethod
    def unique_id() -> bytes:
        """A new unique id (128 bytes) for :meth:`join`."""
        _find_nccl()
        return _native._comm_unique_id()

    # ---- facts -----------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of ranks in the communicator (all processes)."""
        return self._size

    @property
    def ranks(self) -> list[int]:
        """The ranks this object drives (one per local device)."""
        return [self._rank0 + i for i in range(len(self._comms))]

    @property
    def devices(self) -> list[int]:
        """The device of each local rank."""
        return list(self._devices)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"ranks {self.ranks} of {self._size}"
        return f"<cubridge.Comm {state} on devices {self._devices}>"

    # ---- lifetime --------------------------------------------------------

    @property
    def closed(self) -> bool:
        return not self._comms

    def close(self) -> None:
        """Frees the communicator (every process closes its own), after a collective
        another thread is running on it. Idempotent."""
        with self._lock:
            comms, self._comms = self._comms, []
        _end_each(comms, _native._comm_destroy)

    def abort(self) -> None:
        """Frees the communicator without waiting for its queued collectives
        (``ncclCommAbort``): those still pending on the GPU end early, with undefined
        results, and their streams go on. The way out when a peer process died or
        hangs, which would leave them, and :meth:`close`, waiting forever; every
        other rank must then abort or close its own. Idempotent; after it the
        communicator is closed. A collective another thread is launching finishes
        its launch first. With ``s`` the :class:`cubridge.Stream` of the collective::

            deadline = time.monotonic() + 30
            while not s.query():
                comm.check_async_error()
                if time.monotonic() > deadline:
                    comm.abort()
                    break
                time.sleep(0.01)
        """
        comms, self._comms = self._comms, []  # not under _lock: a stuck peer must not block this
        _end_each(comms, _native._comm_abort)

    def check_async_error(self) -> None:
        """Raises NCCL's asynchronous error on the communicator, if there is one
        (``ncclCommGetAsyncError``: a network or remote failure NCCL's threads saw;
        :class:`cubridge.CudaError` with NCCL's message). A peer that stops calling
        collectives over NVLink or PCIe is no error there, only work that never
        finishes: poll the stream with a deadline, then :meth:`abort`."""
        if self.closed:
            raise ValueError("the communicator is closed")
        for c in self._comms:  # abort() replaces the list, never changes it
            _native._comm_async_error(c)

    def __enter__(self) -> "Comm":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- collectives -------------------------------------------------------

    def _per_rank(self, name: str, arrays: Any, allow_none: bool = False) -> list[Any]:
        if self.closed:
            raise ValueError("the communicator is closed")
        n = len(self._comms)
        if isinstance(arrays, (list, tuple)):
            if len(arrays) != n:
                raise ValueError(f"{name} must have one array per local device ({n}); got {len(arrays)}")
            return list(arrays)
        if n != 1:
            raise ValueError(f"{name} must be a list of {n} arrays, one per local device {self._devices}")
        if arrays is None and not allow_none:
            raise TypeError(f"{name} must be an array")
        return [arrays]

    def _run(self, kind: int, send: Any, recv: Any, extra: int, stream: Any) -> Any:
        # Held from the first rank's check to the last rank's mark: a close() or another
        # thread's collective in between would land inside this one's NCCL group.
        with self._lock:
            return self._run_locked(kind, send, recv, extra, stream)

    def _run_locked(self, kind: int, send: Any, recv: Any, extra: int, stream: Any) -> Any:
        sends = self._per_rank("send", send, allow_none=kind == _BROADCAST)
        recvs = sends if recv is None else self._per_rank("recv", recv)
        if kind == _BROADCAST:
            sends = [s if i + self._rank0 == extra else None for i, s in enumerate(sends)]
        if isinstance(stream, (list, tuple)):
            streams = self._per_rank("stream", stream)
        else:
            streams = [stream] * len(self._comms)
        calls = list(zip(self._comms, sends, recvs, streams))
        if len(calls) == 1:
            comm, s, r, st = calls[0]
            _native._comm_collective(kind, comm, s, r, extra, st, _RUN)
        else:
            # Every rank's arguments first: a rank refused after the others were
            # queued in the group would leave them waiting for it on the GPU.
            for comm, s, r, st in calls:
                _native._comm_collective(kind, comm, s, r, extra, st, _CHECK)
            _native._comm_group(True)
            try:
                for comm, s, r, st in calls:
                    _native._comm_collective(kind, comm, s, r, extra, st, _QUEUE)
            finally:
                _native._comm_group(False)
            # The kernels are queued at the group's end: only now can the arrays'
            # uses be recorded after them.
            for comm, s, r, st in calls:
                _native._comm_collective(kind, comm, s, r, extra, st, _MARK)
        if recv is None:
            return send
        return recv

    def all_reduce(self, send: Any, recv: Any = None, *, op: str = "sum", stream: Any = None) -> Any:
        """``recv = op(send over all ranks)`` on every rank (in place when ``recv`` is
        None). ``op``: ``"sum"``, ``"prod"``, ``"max"`` or ``"min"``. Returns recv."""
        return self._run(_ALL_REDUCE, send, recv, _op_code(op), stream)

    def broadcast(self, send: Any, recv: Any = None, *, root: int = 0, stream: Any = None) -> Any:
        """Copies rank ``root``'s ``send`` to every rank's ``recv`` (in place when
        ``recv`` is None; non-root ranks may pass None as send when recv is given)."""
        root = int(root)
        if not 0 <= root < self._size:
            raise ValueError(f"root must be in [0, {self._size}); got {root}")
        return self._run(_BROADCAST, send, recv, root, stream)

    def reduce_scatter(self, send: Any, recv: Any, *, op: str = "sum", stream: Any = None) -> Any:
        """Reduces ``send`` (``size * recv.size`` elements) over the ranks; rank r gets
        slice r of the result in ``recv``."""
        if recv is None:
            raise TypeError("reduce_scatter needs recv arrays")
        return self._run(_REDUCE_SCATTER, send, recv, _op_code(op), stream)

    def all_gather(self, send: Any, recv: Any, *, stream: Any = None) -> Any:
        """Concatenates every rank's ``send``, in rank order, into ``recv``
        (``size * send.size`` elements) on every rank."""
        if recv is None:
            raise TypeError("all_gather needs recv arrays")
        return self._run(_ALL_GATHER, send, recv, 0, stream)

    def __del__(self) -> None:
        if getattr(self, "_comms", None):
            try:
                self.close()
            except Exception:
                pass
