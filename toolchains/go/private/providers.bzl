"""Providers of cubridge's Go rules.

GoArchiveInfo: one compiled Go package (go_library, and the packages in @go_deps).
  importpath: string, the package's import path.
  export: File, the export data (`go tool compile -o`): what the compilers of
    dependent packages read; it changes only when the package's API does.
  archive: File, the archive for the linker (`-linkobj`), with the objects of the
    package's cgo part appended.
  transitive: depset of struct(importpath, archive) of this package and of every
    Go package it depends on (the standard library excluded), for the link.
  cc_info: CcInfo of the `cdeps` of this package and of its dependencies, linked
    once into each binary (alwayslink libraries whole).
  srcs: list of File, the package's sources (for `embed` in go_test / go_binary).
  deps: list of GoArchiveInfo, the direct Go dependencies (for `embed`).
  cdeps: list of CcInfo, the direct C/C++/CUDA dependencies (for `embed`).

GoStdlibInfo: the standard library, compiled once per configuration.
  dir: File (a directory), `<importpath>.a` for each package of std.
  race, asan: bool, how it was compiled.

GoModuleInfo: the packages of a go.mod's module dependencies (@go_deps//:all).
  module_path: string, the `module` line of the go.mod (default import paths).
  archives: list of GoArchiveInfo, every package of every required module.

GoToolchainInfo (fields of the go_toolchain's ToolchainInfo, `toolchain_type`
//toolchains/go:toolchain):
  go: File, the SDK's bin/go.
  goroot: string, GOROOT relative to the execution root.
  sdk: depset of File, the SDK files actions need.
  builder: FilesToRunProvider, cubridge's builder (toolchains/go/builder).
  version: string, e.g. "go1.27.3".
"""

GoArchiveInfo = provider(
    doc = "A compiled Go package.",
    fields = {
        "archive": "File: the archive for the linker (-linkobj), cgo objects appended.",
        "cc_info": "CcInfo: the cdeps of this package and of its dependencies, linked once per binary.",
        "cdeps": "list of CcInfo: the direct C/C++/CUDA dependencies (for embed).",
        "deps": "list of GoArchiveInfo: the direct Go dependencies (for embed).",
        "export": "File: the export data that dependent packages compile against.",
        "importpath": "string: the package's import path.",
        "srcs": "list of File: the package's sources (for embed).",
        "transitive": "depset of struct(importpath, archive): this package and every Go package below it.",
    },
)

GoStdlibInfo = provider(
    doc = "The Go standard library compiled for one configuration.",
    fields = {
        "asan": "bool: compiled with -asan.",
        "dir": "File (directory): <importpath>.a for each package of std.",
        "race": "bool: compiled with -race.",
    },
)

GoModuleInfo = provider(
    doc = "The compiled packages of the module dependencies of a go.mod.",
    fields = {
        "archives": "list of GoArchiveInfo: every package of every required module.",
        "module_path": "string: the go.mod's module path (default import paths).",
    },
)
