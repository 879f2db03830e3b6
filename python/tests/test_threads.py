"""Ops from many threads at once (the GIL is released while kernels run)."""

from __future__ import annotations

import threading

import numpy as np

import cubridge


def test_concurrent_ops_give_right_answers() -> None:
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            rng = np.random.default_rng(seed)
            a = rng.integers(-100, 100, 100_000).astype(np.int64)
            d = cubridge.asarray(a)
            for _ in range(20):
                assert cubridge.sum(a) == int(a.sum())
                np.testing.assert_array_equal(cubridge.add(a, a), 2 * a)
                assert cubridge.sum(cubridge.mul(d, d)) == int((a * a).sum())
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
