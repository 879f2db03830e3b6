"""GPU tests: the one place that says how a test asks for a GPU."""

# Tags of a test that needs a GPU.
GPU_TAGS = ["gpu"]

# Remote execution properties of its test action (the "test" exec group:
# only the action that runs the test asks for a GPU, never its compiles).
# Workers with GPUs advertise gpu=1..N; the engine gives them nothing else.
GPU_EXEC_PROPERTIES = {"test.gpu": "1"}

def gpu_sh_test(name, tags = [], exec_properties = {}, **kwargs):
    """An sh_test that needs a GPU: tagged, and run remotely on a GPU worker only.

    Args:
      name: the test's name.
      tags: more tags.
      exec_properties: more execution properties.
      **kwargs: what sh_test takes.
    """
    props = dict(exec_properties)
    props.update(GPU_EXEC_PROPERTIES)
    native.sh_test(
        name = name,
        tags = tags + GPU_TAGS,
        exec_properties = props,
        **kwargs
    )
