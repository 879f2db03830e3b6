"""py_extension's own test: the module imports, is abi3, and calls into CUDA code."""

import importlib.machinery
import unittest

from toolchains.python.tests.pkg import smoke_ext


class SmokeExtTest(unittest.TestCase):
    def test_abi3_module_calls_cuda_library(self):
        self.assertTrue(smoke_ext.__file__.endswith(".abi3.so"))
        self.assertIn(".abi3.so", importlib.machinery.EXTENSION_SUFFIXES)
        self.assertGreaterEqual(smoke_ext.device_count(), 0)


if __name__ == "__main__":
    unittest.main()
