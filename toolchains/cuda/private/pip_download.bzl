"""Hash-pinned wheels fetched with pip, as this machine configures it."""

def pip_download(rctx, requirements, what, platforms = []):
    """Downloads hash-pinned wheels into wheels/ with pip.

    Args:
      rctx: the repository context.
      requirements: pip requirement lines, each with its --hash=sha256:...
      what: what is fetched, for messages ("CUDA 13.0 wheels").
      platforms: wheel platform tags to take instead of the build machine's
        (manylinux2014_aarch64, ...) for another target; the hashes decide.

    Returns:
      (the python3 that ran pip, the sorted paths of the downloaded wheels)
    """
    rctx.file("requirements.txt", "\n".join(requirements) + "\n")
    python = rctx.which("python3") or fail("cubridge: python3 (with pip) is needed to fetch the " + what)

    # pip as this machine configures it (index, proxy, certificates): no host names here.
    rctx.report_progress("pip download of the pinned " + what)
    result = rctx.execute(
        [
            python,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--require-hashes",
            "--disable-pip-version-check",
        ] + ["--platform=" + p for p in platforms] + [
            "-d",
            "wheels",
            "-r",
            "requirements.txt",
        ],
        timeout = 1800,
        quiet = True,
    )
    if result.return_code != 0:
        fail("cubridge: pip download of the {} failed:\n{}{}".format(what, result.stdout, result.stderr))
    return python, sorted([str(p) for p in rctx.path("wheels").readdir()])
