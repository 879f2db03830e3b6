"""Runs pytest with CuPy and torch hidden (their imports fail, their tests skip).

For compute-sanitizer's leak check over the Python tests: the peers' caching
allocators keep device memory until the process ends, which the leak check
would report as theirs. Usage: python3 pytest_without_peers.py PYTEST_ARGS...
"""

import sys

import pytest

for name in ("cupy", "torch"):
    sys.modules[name] = None  # type: ignore[assignment]

sys.exit(pytest.main(sys.argv[1:]))
