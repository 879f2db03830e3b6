"""Where a cubridge call on CuPy arrays spends its time (run on the GPU host).

Times each way of reading a cupy.ndarray (its __cuda_array_interface__ property,
the attributes that property is built from, DLPack, CuPy's current stream, a
pointer-attribute query) and the add calls they serve, best of 5 rounds:

    PYTHONPATH=<dir with cubridge> python3 bench/micro/cupy_probe.py
"""

import sys
import timeit

import cupy
import torch

import cubridge

N = 1000


def main() -> None:
    print("cupy", cupy.__version__, "torch", torch.__version__)
    ca, cb, cc = (cupy.ones(N, dtype=cupy.float32) for _ in range(3))
    kind = type(ca)
    print("DLPack C exchange table:", hasattr(kind, "__dlpack_c_exchange_api__"))
    print("CuPy C API capsule:", hasattr(sys.modules["cupy"], "_public_c_api"))
    a, b, c = (cubridge.full(N, 1.0, dtype="float32") for _ in range(3))
    ta, tb, tc = (torch.ones(N, device="cuda") for _ in range(3))
    env = dict(ca=ca, cb=cb, cc=cc, a=a, b=b, c=c, ta=ta, tb=tb, tc=tc)
    env.update(cupy=cupy, cubridge=cubridge, rt=cupy.cuda.runtime, p=ca.data.ptr)
    rows = [
        ("ca.__cuda_array_interface__", "ca.__cuda_array_interface__"),
        ("data.ptr, data.device_id, shape, strides, dtype",
         "d = ca.data; d.ptr; d.device_id; ca.shape; ca.strides; ca.dtype"),
        ("cupy.cuda.get_current_stream().ptr", "cupy.cuda.get_current_stream().ptr"),
        ("runtime.pointerGetAttributes(ptr)", "rt.pointerGetAttributes(p)"),
        ("ca.__dlpack__()", "ca.__dlpack__()"),
        ("ca.__dlpack_device__()", "ca.__dlpack_device__()"),
        ("cubridge.add(a, b, out=c), Arrays", "cubridge.add(a, b, out=c)"),
        ("cubridge.add(ca, cb, out=cc), CuPy arrays", "cubridge.add(ca, cb, out=cc)"),
        ("cupy.add(ca, cb, out=cc)", "cupy.add(ca, cb, out=cc)"),
        ("cubridge.add(ta, tb, out=tc), torch tensors", "cubridge.add(ta, tb, out=tc)"),
    ]
    for label, stmt in rows:
        n = 20000
        best = min(timeit.repeat(stmt, globals=env, number=n, repeat=5)) / n * 1e9
        print(f"{label:48s} {best:8.1f} ns")
        cupy.cuda.runtime.deviceSynchronize()


if __name__ == "__main__":
    main()
