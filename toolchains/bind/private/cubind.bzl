"""cubind: the action that turns .bind declarations into a binding's sources."""

def _cubind_impl(ctx):
    decls = ctx.files.srcs
    headers = [ctx.actions.declare_file(f.basename + ".h") for f in decls]
    name = ctx.label.name
    c_src = ctx.actions.declare_file(name + ".bind.c")
    py_src = ctx.actions.declare_file(name + "_python.c")
    pyi = ctx.actions.declare_file(ctx.attr.py_module.replace(".", "/") + ".pyi")
    go_src = ctx.actions.declare_file(name + ".go")
    cctest = ctx.actions.declare_file(name + "_test.cc")
    doc = ctx.actions.declare_file(name + ".md")
    args = ctx.actions.args()
    args.add_joined("-headers", headers, join_with = ",")
    args.add("-c", c_src)
    args.add("-py", py_src)
    args.add("-pyi", pyi)
    args.add("-go", go_src)
    args.add("-cctest", cctest)
    args.add("-doc", doc)
    args.add("-py_module", ctx.attr.py_module)
    args.add("-go_package", ctx.attr.go_package)
    args.add("-go_importpath", ctx.attr.go_importpath)
    args.add_all(decls)
    outputs = headers + [c_src, py_src, pyi, go_src, cctest, doc]
    ctx.actions.run(
        executable = ctx.executable._cubind,
        arguments = [args],
        inputs = decls,
        outputs = outputs,
        mnemonic = "CuBind",
        progress_message = "Generating the bindings of %{label}",
    )
    return [
        DefaultInfo(files = depset(outputs)),
        OutputGroupInfo(
            headers = depset(headers),
            c = depset([c_src]),
            python = depset([py_src]),
            pyi = depset([pyi]),
            go = depset([go_src]),
            cctest = depset([cctest]),
            doc = depset([doc]),
        ),
    ]

cubind = rule(
    implementation = _cubind_impl,
    doc = "Runs cubind over declarations; output groups: headers, c, python, pyi, go, cctest, doc.",
    attrs = {
        "go_importpath": attr.string(mandatory = True),
        "go_package": attr.string(mandatory = True),
        "py_module": attr.string(mandatory = True),
        "srcs": attr.label_list(allow_files = [".bind"], mandatory = True, allow_empty = False),
        "_cubind": attr.label(
            default = Label("//toolchains/bind/cubind"),
            executable = True,
            cfg = "exec",
        ),
    },
)
