"""Entry point of pytest_test: runs pytest on the arguments the target passes."""

import sys

import pytest

if __name__ == "__main__":
    # No cache directory: the runfiles tree is read-only.
    sys.exit(pytest.main(["-p", "no:cacheprovider", "-ra", *sys.argv[1:]]))
