"""The Python tests against the installed wheel: pip installs the built wheel into a
fresh virtual environment of the interpreter running this test, with the wheels of
the tests' own packages (the hash-checked lock), and python/tests runs there on
the CPU backend. Under --config=aarch64 that interpreter is the aarch64 CPython,
run by qemu-user: the aarch64 wheel is installed into an aarch64 CPython.

Environment (set by //python:wheel_venv_test): CUBRIDGE_WHEEL (the directory of
the one wheel), CUBRIDGE_TEST_WHEELS and CUBRIDGE_PYTHON_TESTS (space-separated
runfiles paths), CUBRIDGE_VECTORS (the files of tests/vectors).
"""

import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys


def paths(name):
    return [pathlib.Path(p).resolve() for p in os.environ[name].split()]


def built_wheel():
    wheels = sorted(pathlib.Path(os.environ["CUBRIDGE_WHEEL"]).resolve().glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, "%s failed:\n%s%s" % (cmd, result.stdout[-4000:], result.stderr[-4000:])
    return result


def test_python_tests_pass_against_the_installed_wheel(tmp_path):
    wheel = built_wheel()
    # The wheel is for this interpreter's machine (x86_64 or aarch64).
    assert wheel.name.endswith("_%s.whl" % platform.machine()), (wheel.name, platform.machine())

    # The venv's commands see none of this test's own packages (PYTHONPATH:
    # the runfiles), or pip would take those as installed already.
    vectors = paths("CUBRIDGE_VECTORS")[0].parent
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "CUBRIDGE_BACKEND": "cpu",
        "CUBRIDGE_VECTORS_DIR": str(vectors),
        "HOME": str(tmp_path),
    }
    for name in ["CUBRIDGE_HYPOTHESIS_EXAMPLES", "CUBRIDGE_EMULATOR", "TEST_TMPDIR"]:
        if name in os.environ:
            env[name] = os.environ[name]

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], env=env)
    vpython = str(venv / "bin" / "python")
    wheels = [str(wheel)] + [str(w) for w in paths("CUBRIDGE_TEST_WHEELS")]
    run([vpython, "-m", "pip", "install", "-q", "--no-index", "--no-deps"] + wheels, env=env)
    where = run([vpython, "-c", "import cubridge, platform; print(cubridge.__file__, platform.machine())"], cwd=tmp_path, env=env)
    installed, machine = where.stdout.split()
    assert installed.startswith(str(venv)), installed
    assert machine == platform.machine(), machine

    # The test files alone, away from the source tree: `import cubridge` can only
    # find the installed package.
    tests = tmp_path / "tests"
    tests.mkdir()
    for f in paths("CUBRIDGE_PYTHON_TESTS"):
        shutil.copy(f, tests / f.name)
    result = subprocess.run(
        [vpython, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    print(result.stdout[-3000:])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    summary = result.stdout.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) > 0, summary
    assert "failed" not in summary and "error" not in summary, summary
