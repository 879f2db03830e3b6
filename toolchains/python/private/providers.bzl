"""Providers of cubridge's Python rules."""

PyWheelInfo = provider(
    doc = """A wheel built by `py_wheel`.

With a hand-written `platform`, `wheel` is the .whl file itself, named by
PEP 427. With `platform = "auto"` the platform tag is derived at build time
from the native code, so the file name is not known before the build:
`wheel` is then a directory holding the one .whl (`<dir>/<name_file's
content>`).""",
    fields = {
        "abi": "string: the ABI tag (`abi3`, `none`, `cp312`, ...).",
        "distribution": "string: the distribution name, as given.",
        "name_file": "File: a text file holding the wheel's file name (one line).",
        "platform": "string: the `platform` attribute: a platform tag, or `\"auto\"`.",
        "platform_file": "File or None: a text file holding the platform tag the wheel got (derived for `\"auto\"`, the checked hand-written one otherwise); None for a wheel without native code and a hand-written `platform`.",
        "python_tag": "string: the Python tag (`py3`, `cp311`, ...).",
        "version": "string: the distribution version.",
        "wheel": "File: the .whl file, or (platform = \"auto\") the directory that holds it.",
    },
)
