"""coverage.py's command line, as rules_python runs a coverage tool (PYTHON_COVERAGE).

rules_python's local-interpreter toolchain has no coverage tool of its own;
pytest_test points PYTHON_COVERAGE here and puts the `coverage` package of the
module's pip hub in the test's deps.
"""

import sys

from coverage.cmdline import main

if __name__ == "__main__":
    sys.exit(main())
