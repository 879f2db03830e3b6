"""The extension, imported from the Bazel runfiles."""

import array

import pytest

import mysaxpy


def test_saxpy_in_place():
    x = array.array("f", [1, 2, 3])
    y = array.array("f", [10, 20, 30])
    mysaxpy.saxpy(2.0, x, y)
    assert list(y) == [12.0, 24.0, 36.0]


def test_length_mismatch():
    with pytest.raises(ValueError):
        mysaxpy.saxpy(1.0, array.array("f", [1]), array.array("f", [1, 2]))


def test_backend():
    assert mysaxpy.backend() in ("cuda", "cpu")
