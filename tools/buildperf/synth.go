package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The synthetic tree: a chain c00 <- c01 <- ... <- c19 and a fan f00..f19 of
// packages that each import c00 (the leaf every edit touches); f00..f04 have a
// cgo part over a cc_library; go_test targets for c19 (internal tests) and
// f00..f08 (external _test packages); one go_binary over c19 and the fan.
const (
	chainLen = 20
	fanLen   = 20
	cgoFan   = 5
	fanTests = 9
)

func synthPackages() (chain, fan []string) {
	for i := 0; i < chainLen; i++ {
		chain = append(chain, fmt.Sprintf("c%02d", i))
	}
	for i := 0; i < fanLen; i++ {
		fan = append(fan, fmt.Sprintf("f%02d", i))
	}
	return chain, fan
}

// writeSynth writes the module into dir; repo is cubridge's checkout.
func writeSynth(dir, repo string) error {
	files := map[string]string{
		"MODULE.bazel": fmt.Sprintf(`module(name = "buildperf_synth", version = "0.0.0")

bazel_dep(name = "cubridge", version = "0.1.0")
local_path_override(module_name = "cubridge", path = %q)

bazel_dep(name = "rules_cc", version = "0.0.11")

go = use_extension("@cubridge//toolchains/go:extensions.bzl", "go")
go.module(name = "go_deps", go_mod = "//:go.mod", go_sum = "//:go.sum")
use_repo(go, "go_deps")
`, repo),
		"BUILD.bazel": `exports_files(["go.mod", "go.sum"])
`,
		"go.mod":   "module example.com/synth\n\ngo 1.24\n",
		"go.sum":   "",
		".bazelrc": "common --enable_bzlmod\ncommon --noenable_workspace\nbuild --jobs=2\nbuild --incompatible_strict_action_env\nstartup --host_jvm_args=-Xmx2g\n",
		"clib/BUILD.bazel": `cc_library(
    name = "clib",
    srcs = ["clib.c"],
    hdrs = ["clib.h"],
    alwayslink = True,
    includes = ["."],
    visibility = ["//visibility:public"],
)
`,
		"clib/clib.h": "int clib_add(int a, int b);\n",
		"clib/clib.c": "#include \"clib.h\"\nint clib_add(int a, int b) { return a + b; }\n",
	}
	chain, fan := synthPackages()
	load := `load("@cubridge//toolchains/go:defs.bzl", "go_binary", "go_library", "go_test")` + "\n\n"
	for i, p := range chain {
		imp, dep, body := "", "", "1"
		if i > 0 {
			imp = fmt.Sprintf("import \"example.com/synth/%s\"\n\n", chain[i-1])
			dep = fmt.Sprintf(`    deps = ["//%s"],`+"\n", chain[i-1])
			body = chain[i-1] + ".Value() + 1"
		}
		files[p+"/"+p+".go"] = fmt.Sprintf("// Package %s is link %d of the chain.\npackage %s\n\n%s// Value is the depth of this link.\nfunc Value() int { return %s }\n", p, i, p, imp, body)
		build := load + fmt.Sprintf("go_library(\n    name = %q,\n    srcs = [\"%s.go\"],\n    visibility = [\"//visibility:public\"],\n%s)\n", p, p, dep)
		if i == chainLen-1 {
			files[p+"/"+p+"_test.go"] = fmt.Sprintf("package %s\n\nimport \"testing\"\n\nfunc TestValue(t *testing.T) {\n\tif Value() != %d {\n\t\tt.Fatal(Value())\n\t}\n}\n", p, chainLen)
			build += fmt.Sprintf("\ngo_test(\n    name = \"%s_test\",\n    srcs = [\"%s_test.go\"],\n    embed = [\":%s\"],\n)\n", p, p, p)
		}
		files[p+"/BUILD.bazel"] = build
	}
	var mainImports, mainSum []string
	for i, p := range fan {
		src := fmt.Sprintf("// Package %s is a blade of the fan.\npackage %s\n\nimport \"example.com/synth/c00\"\n\n// Value is c00's plus %d.\nfunc Value() int { return c00.Value() + %d }\n", p, p, i, i)
		cdeps := ""
		if i < cgoFan {
			src = fmt.Sprintf("// Package %s is a blade of the fan, with a cgo part.\npackage %s\n\n// #include \"clib.h\"\nimport \"C\"\n\nimport \"example.com/synth/c00\"\n\n// Value is c00's plus %d, added in C.\nfunc Value() int { return int(C.clib_add(C.int(c00.Value()), %d)) }\n", p, p, i, i)
			cdeps = `    cdeps = ["//clib"],` + "\n"
		}
		files[p+"/"+p+".go"] = src
		build := load + fmt.Sprintf("go_library(\n    name = %q,\n    srcs = [\"%s.go\"],\n%s    visibility = [\"//visibility:public\"],\n    deps = [\"//c00\"],\n)\n", p, p, cdeps)
		if i < fanTests {
			files[p+"/"+p+"_test.go"] = fmt.Sprintf("package %s_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/synth/%s\"\n)\n\nfunc TestValue(t *testing.T) {\n\tif %s.Value() != %d {\n\t\tt.Fatal(%s.Value())\n\t}\n}\n", p, p, p, i+1, p)
			build += fmt.Sprintf("\ngo_test(\n    name = \"%s_test\",\n    srcs = [\"%s_test.go\"],\n    deps = [\":%s\"],\n)\n", p, p, p)
		}
		files[p+"/BUILD.bazel"] = build
		mainImports = append(mainImports, fmt.Sprintf("\t\"example.com/synth/%s\"", p))
		mainSum = append(mainSum, p+".Value()")
	}
	mainImports = append(mainImports, fmt.Sprintf("\t\"example.com/synth/%s\"", chain[chainLen-1]))
	mainSum = append(mainSum, chain[chainLen-1]+".Value()")
	files["app/main.go"] = fmt.Sprintf("// Command app sums every package's value.\npackage main\n\nimport (\n\t\"fmt\"\n\n%s\n)\n\nfunc main() { fmt.Println(%s) }\n", strings.Join(mainImports, "\n"), strings.Join(mainSum, " + "))
	var deps []string
	for _, p := range append(fan, chain[chainLen-1]) {
		deps = append(deps, fmt.Sprintf("        \"//%s\",", p))
	}
	files["app/BUILD.bazel"] = load + fmt.Sprintf("go_binary(\n    name = \"app\",\n    srcs = [\"main.go\"],\n    deps = [\n%s\n    ],\n)\n", strings.Join(deps, "\n"))
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// synthOldDesignCompiles: package compilations of the former design (one
// `go build` over every transitive package per binary or test) for a build
// of the whole tree: the sum over binaries and tests of their package counts.
func synthOldDesignCompiles() int {
	total := chainLen + fanLen + 1 // app: every package and main
	total += chainLen              // c19_test: the whole chain
	total += fanTests * 2          // fXX_test: fXX and c00 (the test package aside)
	return total
}

// synthReverseDeps of c00: every chain link above it and every fan blade.
func synthReverseDeps() int { return chainLen - 1 + fanLen }
