"""rule_reference: a Markdown rule reference from starlark_doc_extract targets,
kept in the source tree: `<name>_test` fails when the committed file differs,
`bazel run :update_<name>` rewrites it."""

def _textproto(label):
    """The text-format output of a starlark_doc_extract target."""
    return label + ".textproto"

def rule_reference(name, modules, reference, header = None, **kwargs):
    """The rule reference: a generated file, its freshness test, its updater.

    Args:
      name: the generated file's target; `<name>_test` and `update_<name>` come with it.
      modules: starlark_doc_extract target -> "TITLE=LOAD_LABEL" (a section each, in order).
      reference: the committed Markdown file that `update_<name>` writes.
      header: a Markdown file put first.
      **kwargs: visibility, tags, ...
    """
    srcs = [_textproto(m) for m in modules]
    args = ["-out $@"]
    if header:
        srcs.append(header)
        args.append("-header $(location {})".format(header))
    for module, section in modules.items():
        args.append("'{}=$(location {})'".format(section, _textproto(module)))
    native.genrule(
        name = name,
        srcs = srcs,
        outs = [name + ".generated.md"],
        cmd = "$(execpath //tools/docgen) " + " ".join(args),
        tools = ["//tools/docgen"],
        **kwargs
    )
    native.sh_test(
        name = name + "_test",
        size = "small",
        srcs = ["//tools/docgen:diff_test.sh"],
        args = [
            "$(rootpath :{})".format(name),
            "$(rootpath {})".format(reference),
            "bazel run //{}:update_{}".format(native.package_name(), name),
        ],
        data = [":" + name, reference],
    )
    native.sh_binary(
        name = "update_" + name,
        srcs = ["//tools/docgen:update.sh"],
        args = [
            "$(rootpath :{})".format(name),
            native.package_name() + "/" + reference,
        ],
        data = [":" + name],
    )
