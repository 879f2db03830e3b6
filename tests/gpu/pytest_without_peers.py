"""Runs pytest with CuPy and torch hidden (their imports fail, their tests skip).

For compute-sanitizer's leak check over the Python tests: the peers' caching
allocators keep device memory until the process ends, which the leak check
would report as theirs. After the tests it prints memory_stats(): what is
still allocated then is what the tests keep alive (freed only if the
interpreter's teardown frees it) or what the library caches. Usage:
python3 pytest_without_peers.py PYTEST_ARGS...
"""

import gc
import sys

import pytest

for name in ("cupy", "torch"):
    sys.modules[name] = None  # type: ignore[assignment]

status = pytest.main(sys.argv[1:])
gc.collect()
import cubridge  # noqa: E402  (after the tests, which import it themselves)

print(f"after the tests: {cubridge.memory_stats()}", flush=True)
sys.exit(status)
