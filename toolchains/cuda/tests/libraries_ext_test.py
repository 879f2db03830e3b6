"""An extension linking cuBLAS / cuRAND finds them as in site-packages, or fails clearly.

In the runfiles, cuda_runtime_libs lays the libraries out as <package>/nvidia/cu13/lib
(CUDA 12: <package>/nvidia/cublas/lib and <package>/nvidia/curand/lib),
one level above the extension (cudalibs/_libraries.abi3.so), exactly as pip installs
the NVIDIA wheels beside a package; nothing sets LD_LIBRARY_PATH.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from toolchains.cuda.tests.cudalibs import _libraries


class LibrariesExtTest(unittest.TestCase):
    def test_finds_the_wheel_libraries(self):
        self.assertNotIn("LD_LIBRARY_PATH", os.environ)
        # cuBLAS follows the CUDA major (13 or 12: the BUILD file says which).
        self.assertEqual(_libraries.versions(), (int(os.environ["CUBRIDGE_CUDA_MAJOR"]), 10))

    @unittest.skipIf(
        os.environ.get("CUBRIDGE_CUDA_MODE") == "local",
        "local toolkit: the run path is the toolkit's absolute library directory, found from anywhere",
    )
    def test_names_the_missing_library_elsewhere(self):
        # The same file in a directory with no nvidia/cu13/lib beside it.
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "cudalibs"))
            shutil.copy(_libraries.__file__, os.path.join(tmp, "cudalibs"))
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            result = subprocess.run(
                [sys.executable, "-c", f"import sys; sys.path.insert(0, {tmp!r}); import cudalibs._libraries"],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
            )
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("ImportError: lib", result.stderr)
            self.assertRegex(result.stderr, r"libcu(blas|rand)[^ ]*\.so\.1[0-3]")


if __name__ == "__main__":
    unittest.main()
