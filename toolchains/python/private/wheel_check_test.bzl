"""wheel_check_test: wheelcheck on a py_wheel's wheel, as a test."""

def wheel_check_test(name, wheel, external_libraries = [], **kwargs):
    """Checks a wheel's tags against what its shared objects need.

    The newest GLIBC_ symbol version they import against the manylinux tag,
    their architecture against the tag's, no C++ runtime symbols, only
    `PyInit_<module>` exported, and no library that manylinux systems lack
    unless `external_libraries` names it.

    Args:
      name: the test's name.
      wheel: a `py_wheel` target (cubridge's, or one that writes a directory
        holding one `.whl`).
      external_libraries: shell patterns of sonames that the wheel's own
        requirements provide, not the system (`"libcublas.so.*"` when the
        wheel requires nvidia-cublas), as auditwheel's `--exclude`.
      **kwargs: passed to `sh_test` (size, tags, target_compatible_with, ...).
    """

    # Built for the machine that runs the script, also when the target is
    # another architecture (exec_tool).
    wheelcheck = str(Label("//toolchains/python/wheelcheck:wheelcheck_exec"))
    native.sh_test(
        name = name,
        srcs = [Label("//toolchains/python/private:run_wheelcheck.sh")],
        args = [
            "$(rootpath %s)" % wheelcheck,
            "$(rootpath %s)" % wheel,
        ] + ["-external=" + glob for glob in external_libraries],
        data = [wheel, wheelcheck],
        **kwargs
    )
