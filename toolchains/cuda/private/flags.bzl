"""string_flag_settings: a string flag and one config_setting per value."""

load("@bazel_skylib//rules:common_settings.bzl", "string_flag")

def string_flag_settings(name, values, build_setting_default):
    """A string_flag `name` and a config_setting `<name>_<value>` for each of its values.

    Args:
      name: the flag's name (--@cubridge//<package>:<name>).
      values: the values it takes; each gets its config_setting.
      build_setting_default: the value when the flag is not set.
    """
    string_flag(
        name = name,
        build_setting_default = build_setting_default,
        values = values,
    )
    for value in values:
        native.config_setting(
            name = name + "_" + value,
            flag_values = {":" + name: value},
        )
