"""rdc = True CUDA code, device-linked once, from a Python extension (py_extension's own test)."""

import importlib.machinery
import unittest

from toolchains.cuda.tests.rdc.rdcpkg import _rdc


class RdcExtTest(unittest.TestCase):
    def test_abi3_module(self):
        self.assertTrue(_rdc.__file__.endswith(".abi3.so"))
        self.assertIn(".abi3.so", importlib.machinery.EXTENSION_SUFFIXES)

    def test_extern_device_across_libraries(self):
        result = _rdc.apply(1, 2, 3, 4)
        if result is None:
            self.skipTest("no CUDA device: the rdc objects and the device link linked")
        self.assertEqual(result, (3.0, 5.0, 7.0, 9.0))


if __name__ == "__main__":
    unittest.main()
