"""The test vectors (testdata/*.txt): cases of named values, as the C++ and Go tests read them."""

import os


def load(path):
    """Cases of the file at ``path`` (relative to the runfiles, or $VECTORS_DIR's file).

    Each case is a dict: ``name`` and ``dtype`` from its ``case`` line, then every
    other key's values as a list of floats ("nan" and "inf" included).
    """
    base = os.environ.get("VECTORS_DIR")
    if base:
        path = os.path.join(base, os.path.basename(path))
    cases, case = [], None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                case = None
                continue
            key, values = line[0], line[1:]
            if key == "case":
                case = {"name": values[0], "dtype": values[1]}
                cases.append(case)
            else:
                case[key] = [float(v) for v in values]
    return cases
