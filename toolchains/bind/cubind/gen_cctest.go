package main

import (
	"fmt"
	"path"
	"strings"
)

// The C++ test skeleton: the contract of each binding, from C++, on either
// backend, without running the kernel: a dtype outside a declared set is
// refused naming the array, a shape against a relation is refused naming
// the array, a missing array is refused, and an empty call succeeds. Copy
// it to test your kernel's values the same way (<name>_call with views).

// testCase is one generated check: sizes of each symbol, a dtype per array,
// which array is left out, and what must come back.
type testCase struct {
	what    string
	sizes   []int
	dtype   map[*Param]int
	resize  *Param // this array's dimension `at` is one larger than its symbol says
	at      int
	missing *Param
	status  string
	message string
}

func genCCTest(decls []*Decl, headers []string) string {
	var b strings.Builder
	files := make([]string, len(decls))
	for i, d := range decls {
		files[i] = d.File
	}
	fmt.Fprintf(&b, "// "+generatedBy+"\n", strings.Join(files, ", "))
	b.WriteString("// The bindings' contract from C++ (a skeleton: copy it to test values).\n")
	b.WriteString("#include <cstdint>\n#include <cstdio>\n#include <cstring>\n#include <string>\n#include <vector>\n\n")
	b.WriteString("#include \"cubridge/bind.h\"\n")
	for _, h := range headers {
		fmt.Fprintf(&b, "#include %q\n", path.Base(h))
	}
	b.WriteString(`
namespace {

int failures = 0;

// One array: storage for any dtype (8 bytes an element) and its view.
struct Array {
  std::vector<double> data;
  int64_t shape[8] = {};
  cubridge_view v;
  Array(int dtype, std::vector<int64_t> dims) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    data.assign(n == 0 ? 1 : n, 0.0);
    std::memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    v.data = n == 0 ? nullptr : data.data();
    v.dtype = dtype;
    v.ndim = static_cast<int>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) shape[i] = dims[i];
    v.shape = shape;
    v.memory = CUBRIDGE_MEMORY_HOST;
    v.device = -1;
  }
};

void Expect(const char* what, cubridge_status got, cubridge_status want, const char* part) {
  const std::string message = cubridge_last_error();
  if (got != want || message.find(part) == std::string::npos) {
    std::fprintf(stderr, "FAIL: %s: got %s \"%s\", want %s with \"%s\"\n", what,
                 cubridge_status_name(got), message.c_str(), cubridge_status_name(want), part);
    ++failures;
  } else {
    std::printf("ok: %s\n", what);
  }
}

}  // namespace

int main() {
`)
	for _, d := range decls {
		for _, tc := range testCases(d) {
			genTestCase(&b, d, tc)
		}
	}
	b.WriteString("  std::printf(\"%s\\n\", failures == 0 ? \"PASSED\" : \"FAILED\");\n")
	b.WriteString("  return failures == 0 ? 0 : 1;\n}\n")
	return b.String()
}

// testCases are the checks d's declaration allows.
func testCases(d *Decl) []testCase {
	base := func() testCase {
		tc := testCase{sizes: make([]int, len(d.Dims)), dtype: map[*Param]int{}}
		for i := range tc.sizes {
			tc.sizes[i] = 2
		}
		for _, p := range d.Params {
			if p.IsArray() {
				tc.dtype[p] = dtypes[p.DTypeSet()[0]]
			}
		}
		return tc
	}
	var cases []testCase
	// A dtype outside the first restricted set.
	for _, p := range d.Params {
		if !p.IsArray() || p.Like != nil || len(p.DTypes) == len(dtypes) {
			continue
		}
		tc := base()
		for _, t := range dtypeOrder {
			if !contains(p.DTypes, t) {
				tc.dtype[p] = dtypes[t]
				tc.what = fmt.Sprintf("%s refuses %s for '%s'", d.Name, t, p.Name)
				break
			}
		}
		tc.status = "CUBRIDGE_ERR_UNSUPPORTED_DTYPE"
		tc.message = fmt.Sprintf("%s: argument '%s' has dtype", d.Name, p.Name)
		cases = append(cases, tc)
		break
	}
	// The second place a symbol appears, one larger than the first says (the
	// library reads scalars first, then arrays in order).
	for i, s := range d.Dims {
		first := setByScalar(d, s)
		var hit *Param
		at := -1
		for _, p := range d.Params {
			for j, dim := range p.Shape {
				if dim.Sym != i || hit != nil {
					continue
				}
				if first {
					hit, at = p, j
				} else {
					first = true
				}
			}
		}
		if hit == nil {
			continue
		}
		tc := base()
		tc.resize, tc.at = hit, at
		tc.what = fmt.Sprintf("%s refuses '%s' against %s", d.Name, hit.Name, s)
		tc.status = "CUBRIDGE_ERR_INVALID_ARGUMENT"
		tc.message = fmt.Sprintf("%s: argument '%s' has shape", d.Name, hit.Name)
		cases = append(cases, tc)
		break
	}
	// The last array left out.
	var last *Param
	for _, p := range d.Params {
		if p.IsArray() {
			last = p
		}
	}
	tc := base()
	tc.missing = last
	tc.what = fmt.Sprintf("%s refuses a missing '%s'", d.Name, last.Name)
	tc.status = "CUBRIDGE_ERR_INVALID_ARGUMENT"
	tc.message = fmt.Sprintf("argument '%s' is missing", last.Name)
	cases = append(cases, tc)
	// Every array empty: nothing runs (only when every array has a symbol).
	empty := true
	for _, p := range d.Params {
		has := false
		for _, dim := range p.Shape {
			has = has || dim.Sym >= 0
		}
		empty = empty && (!p.IsArray() || has)
	}
	if empty {
		tc := base()
		for i := range tc.sizes {
			tc.sizes[i] = 0
		}
		tc.what = fmt.Sprintf("%s on empty arrays", d.Name)
		tc.status = "CUBRIDGE_OK"
		cases = append(cases, tc)
	}
	return cases
}

func contains(set []string, t string) bool {
	for _, s := range set {
		if s == t {
			return true
		}
	}
	return false
}

func genTestCase(b *strings.Builder, d *Decl, tc testCase) {
	b.WriteString("  {\n")
	var args []string
	for _, p := range d.Params {
		switch {
		case p.Kind == kindFloat:
			args = append(args, "1.0")
		case p.Kind == kindInt && p.SetsDim >= 0:
			args = append(args, fmt.Sprint(tc.sizes[p.SetsDim]))
		case p.Kind == kindInt:
			args = append(args, "1")
		case p == tc.missing:
			args = append(args, "nullptr")
		default:
			dims := make([]string, len(p.Shape))
			for j, dim := range p.Shape {
				size := dim.Size
				if dim.Sym >= 0 {
					size = tc.sizes[dim.Sym]
				}
				if p == tc.resize && j == tc.at {
					size++
				}
				dims[j] = fmt.Sprint(size)
			}
			fmt.Fprintf(b, "    Array %s(%d, {%s});\n", p.Name, tc.dtype[p], strings.Join(dims, ", "))
			args = append(args, "&"+p.Name+".v")
		}
	}
	fmt.Fprintf(b, "    Expect(%s, %s_call(%s, nullptr), %s, %s);\n", cString(tc.what), d.Name,
		strings.Join(args, ", "), tc.status, cString(tc.message))
	b.WriteString("  }\n")
}
