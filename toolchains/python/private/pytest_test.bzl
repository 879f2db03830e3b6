"""pytest_test: a rules_python py_test that runs pytest over its test files."""

load("@rules_python//python:defs.bzl", "py_test")

def _labels(dep):
    """A label as a list; a select() of lists as it is."""
    return [dep] if type(dep) == "string" else dep

def pytest_test(name, srcs, args = [], data = [], deps = [], env = {}, pytest = "@pypi//pytest", coverage = "@pypi//coverage", **kwargs):
    """Runs pytest on `srcs` (test files; conftest.py may be among them).

    Args:
      name: target name.
      srcs: test files, passed to pytest.
      args: extra pytest arguments.
      data: run-time files.
      deps: py_library targets the tests import.
      env: environment variables of the test.
      pytest: the pytest library, from the calling module's pip hub (pip.parse):
        "@pypi//pytest" unless it names its hub otherwise; a select of a
        one-label list picks it per platform.
      coverage: coverage.py from the same hub, for `bazel coverage` (rules_python's
        local-interpreter toolchain brings no coverage tool); None: none. A
        select of a one-label list, as for pytest.
      **kwargs: passed to py_test (size, tags, ...).
    """
    main = Label("//toolchains/python/private:pytest_main.py")
    coverage_main = Label("//toolchains/python/private:coverage_main.py")
    py_test(
        name = name,
        srcs = srcs + [main],
        main = main,
        args = ["$(rootpath %s)" % s for s in srcs if not s.endswith("conftest.py")] + args,
        data = data + ([coverage_main] if coverage else []),
        deps = deps + _labels(pytest) + (_labels(coverage) if coverage else []),
        # (`|`: env may be a select())
        env = env | ({"PYTHON_COVERAGE": "$(rlocationpath {})".format(coverage_main)} if coverage else {}),
        # No __init__.py made up in the runfiles: the test directory imports as
        # it does from a checkout (pytest puts it on sys.path, so test modules
        # can import helper modules beside them).
        legacy_create_init = 0,
        **kwargs
    )
