package main

import (
	"fmt"
	"strconv"
	"strings"
)

// version is a glibc version such as 2.35.
type version struct{ major, minor int }

func (v version) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }
func (v version) less(w version) bool {
	return v.major < w.major || (v.major == w.major && v.minor < w.minor)
}

func parseVersion(s string) (version, error) {
	major, minor, ok := strings.Cut(s, ".")
	if !ok {
		return version{}, fmt.Errorf("bad version %q", s)
	}
	minor, _, _ = strings.Cut(minor, ".") // GLIBC_2.2.5 -> 2.2
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return version{}, fmt.Errorf("bad version %q", s)
	}
	return version{a, b}, nil
}

// platformTag returns the platform tag of a wheel file name
// (name-version[-build]-python-abi-platform.whl).
func platformTag(filename string) (string, error) {
	parts := strings.Split(strings.TrimSuffix(filename, ".whl"), "-")
	if !strings.HasSuffix(filename, ".whl") || len(parts) < 5 {
		return "", fmt.Errorf("%q is not a wheel file name", filename)
	}
	return parts[len(parts)-1], nil
}

// manylinuxGlibc returns the newest glibc a platform tag allows:
// manylinux_2_35_x86_64 -> 2.35, manylinux2014_x86_64 -> 2.17.
func manylinuxGlibc(tag string) (version, error) {
	legacy := map[string]version{"manylinux1": {2, 5}, "manylinux2010": {2, 12}, "manylinux2014": {2, 17}}
	for prefix, v := range legacy {
		if strings.HasPrefix(tag, prefix+"_") {
			return v, nil
		}
	}
	rest, ok := strings.CutPrefix(tag, "manylinux_")
	if !ok {
		return version{}, fmt.Errorf("platform tag %q is not a manylinux tag", tag)
	}
	fields := strings.SplitN(rest, "_", 3)
	if len(fields) < 3 {
		return version{}, fmt.Errorf("platform tag %q is not manylinux_X_Y_ARCH", tag)
	}
	return parseVersion(fields[0] + "." + fields[1])
}
