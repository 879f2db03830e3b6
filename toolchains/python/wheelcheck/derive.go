package main

import (
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"path"
	"strings"
)

// elfArch names an ELF machine as wheel platform tags do.
var elfArch = map[elf.Machine]string{
	elf.EM_X86_64: "x86_64", elf.EM_AARCH64: "aarch64", elf.EM_PPC64: "ppc64le",
	elf.EM_S390: "s390x", elf.EM_386: "i686", elf.EM_RISCV: "riscv64",
}

// objectNeeds is what one shared object needs of the system, for a tag.
type objectNeeds struct {
	name  string
	arch  string
	glibc version
}

func readObject(file string) (objectNeeds, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return objectNeeds{}, err
	}
	return objectFromBytes(path.Base(file), data)
}

// objectFromBytes is readObject for a shared object already read (from a wheel).
func objectFromBytes(name string, data []byte) (objectNeeds, error) {
	needs, err := inspect(data)
	if err != nil {
		return objectNeeds{}, fmt.Errorf("%s: %w", name, err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return objectNeeds{}, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	arch, ok := elfArch[f.Machine]
	if !ok {
		return objectNeeds{}, fmt.Errorf("%s: no wheel platform for machine %v", name, f.Machine)
	}
	return objectNeeds{name: name, arch: arch, glibc: needs.glibc}, nil
}

// deriveTag is the platform tag that the shared objects need: manylinux_X_Y_ARCH
// with X.Y the newest glibc symbol version any of them imports ("any" without
// shared objects). why names the object that sets the version.
func deriveTag(objects []objectNeeds) (tag, why string, err error) {
	if len(objects) == 0 {
		return "any", "no shared objects", nil
	}
	var top objectNeeds
	for _, o := range objects {
		if o.arch != objects[0].arch {
			return "", "", fmt.Errorf("shared objects for two architectures: %s (%s) and %s (%s)", objects[0].name, objects[0].arch, o.name, o.arch)
		}
		if top.name == "" || top.glibc.less(o.glibc) {
			top = o
		}
	}
	return fmt.Sprintf("manylinux_%d_%d_%s", top.glibc.major, top.glibc.minor, top.arch),
		fmt.Sprintf("%s needs glibc %s", top.name, top.glibc), nil
}

// checkTag fails when a hand-written platform tag does not fit the objects:
// a glibc older than they need, another architecture, or no platform at all.
func checkTag(given, derived, why string) error {
	if given == derived {
		return nil
	}
	if derived == "any" {
		if given != "any" {
			return fmt.Errorf("platform %q, but the wheel holds no shared object (use \"any\" or \"auto\")", given)
		}
		return nil
	}
	if given == "any" {
		return fmt.Errorf("platform \"any\", but %s (use %q or \"auto\")", why, derived)
	}
	allowed, err := manylinuxGlibc(given)
	if err != nil {
		return fmt.Errorf("%v; the wheel holds native code: use %q or \"auto\"", err, derived)
	}
	needed, _ := manylinuxGlibc(derived)
	if allowed.less(needed) {
		return fmt.Errorf("platform %q allows glibc %s, but %s: use %q or \"auto\"", given, allowed, why, derived)
	}
	arch := archOf(derived)
	if !strings.HasSuffix(given, "_"+arch) {
		return fmt.Errorf("platform %q is not for %s, the architecture of the wheel's native code: use %q or \"auto\"", given, arch, derived)
	}
	return nil
}

// archOf is the architecture part of a derived tag manylinux_X_Y_ARCH.
func archOf(tag string) string {
	fields := strings.SplitN(tag, "_", 4)
	if len(fields) < 4 {
		return ""
	}
	return fields[3]
}

// tagMain: wheelcheck tag [-expect TAG] [-out FILE] SHARED_OBJECT...
// prints (or writes) the derived platform tag; with -expect, fails unless TAG
// fits the objects.
func tagMain(args []string) error {
	fs := flag.NewFlagSet("tag", flag.ContinueOnError)
	expect := fs.String("expect", "", "a hand-written tag to check against the objects (auto: none)")
	out := fs.String("out", "", "write the tag to this file instead of stdout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var objects []objectNeeds
	for _, f := range fs.Args() {
		o, err := readObject(f)
		if err != nil {
			return err
		}
		objects = append(objects, o)
	}
	tag, why, err := deriveTag(objects)
	if err != nil {
		return err
	}
	if *expect != "" && *expect != "auto" {
		if err := checkTag(*expect, tag, why); err != nil {
			return err
		}
		tag = *expect
	}
	if *out == "" {
		fmt.Println(tag)
		return nil
	}
	return os.WriteFile(*out, []byte(tag+"\n"), 0o644)
}
