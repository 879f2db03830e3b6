package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const saxpyDecl = `# y = a*x + y
kernel saxpy
entry  saxpy_entry
doc    y = a*x + y,
doc    in place.
in     x  float32|float64 [n]
inout  y  like x          [n]   # comment
scalar a  float
`

func TestParseSaxpy(t *testing.T) {
	d, err := parseDecl("saxpy.bind", saxpyDecl)
	require.NoError(t, err)
	assert.Equal(t, "saxpy", d.Name)
	assert.Equal(t, 2, d.Line)
	assert.Equal(t, "saxpy_entry", d.Entry)
	assert.Equal(t, "y = a*x + y, in place.", docText(d))
	assert.Equal(t, []string{"n"}, d.Dims)
	require.Len(t, d.Params, 3)
	x, y, a := d.Params[0], d.Params[1], d.Params[2]
	assert.Equal(t, []string{"float32", "float64"}, x.DTypes)
	assert.Equal(t, x, y.Like)
	assert.Equal(t, []string{"float32", "float64"}, y.DTypeSet())
	assert.Equal(t, []Dim{{Sym: 0}}, y.Shape)
	assert.Equal(t, kindFloat, a.Kind)
	assert.Equal(t, "stage", d.Host)
	assert.Equal(t, "array", d.Result)
}

func TestParseShapesAndScalarSizes(t *testing.T) {
	d, err := parseDecl("m.bind", "kernel m\nentry e\nscalar n int\nin a float16 [m, 3]\nout c int64 [n,m]\nhost cpu\nresult caller\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"m", "n"}, d.Dims)
	assert.Equal(t, []Dim{{Sym: 0}, {Size: 3, Sym: -1}}, d.Params[1].Shape)
	assert.Equal(t, 1, d.Params[0].SetsDim, "n sizes the symbol n")
	assert.Equal(t, "cpu", d.Host)
	assert.Equal(t, "caller", d.Result)
	assert.Equal(t, "cubridge_status e(const cubridge_launch* launch, int64_t n, const cubridge_view* a, const cubridge_view* c, int64_t m)", entryPrototype(d))
}

// Every mistake is an error naming the file and the line.
func TestDeclarationErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"kernel k\nentry e\nin x float31 [n]\n", `k.bind:3: unknown dtype "float31" for 'x'`},
		{"kernel k\nentry e\nin x float32\n", "k.bind:3: array 'x' needs a shape in brackets"},
		{"kernel k\nentry e\nin x like y [n]\n", "k.bind:3: 'x' is like 'y', which is no array declared above"},
		{"kernel k\nentry e\nin x float32 [n]\nin x float32 [n]\n", "k.bind:4: parameter 'x' is declared twice (first on line 3)"},
		{"kernel k\nentry e\nin stream float32 [n]\n", "k.bind:3: 'stream' cannot name a parameter"},
		{"kernel k\nentry e\nin x float32 [n-1]\n", `k.bind:3: dimension "n-1" of 'x' is neither`},
		{"kernel k\nentry e\nscalar a double\n", `k.bind:3: scalar 'a' is 'float' or 'int', got "double"`},
		{"kernel k\nentry e\nscalar n float\nout x float32 [n]\n", "k.bind:3: 'n' sizes a dimension (line 4), so it must be an int scalar"},
		{"kernel k\nentry e\nscalar a float\n", "k.bind:1: kernel 'k' has no array parameter"},
		{"kernel k\nkernel j\n", "k.bind:2: a second 'kernel' statement (the first is on line 1)"},
		{"kernel k\nentry e\nhost gpu\n", `k.bind:3: 'host' is stage or cpu, got "gpu"`},
		{"kernel k\nentry e\nin x float32 [n]\nwhatever\n", "k.bind:4: unknown statement 'whatever'"},
		{"entry e\nin x float32 [n]\n", "k.bind: no 'kernel NAME' statement"},
		{"kernel k\nin x float32 [n]\n", "k.bind:1: kernel 'k' has no 'entry C_FUNCTION' statement"},
		{"kernel 9k\n", `k.bind:1: 'kernel' takes one C identifier, got "9k"`},
		{"kernel k\nentry e\nin x float32 [n]\nin y float32 [x]\n", "k.bind:4: dimension 'x' of 'y' has the name of an array parameter"},
	} {
		_, err := parseDecl("k.bind", tc.text)
		if assert.Error(t, err, tc.text) {
			assert.True(t, strings.HasPrefix(err.Error(), tc.want), "%q\n got: %v\nwant: %s", tc.text, err, tc.want)
		}
	}
}

func TestGeneratedSources(t *testing.T) {
	d, err := parseDecl("saxpy.bind", saxpyDecl)
	require.NoError(t, err)
	decls := []*Decl{d}
	h := genHeader(d, "out/saxpy.bind.h")
	assert.Contains(t, h, "cubridge_status saxpy_entry(const cubridge_launch* launch, const cubridge_view* x, const cubridge_view* y, double a, int64_t n);")
	assert.Contains(t, h, "extern const cubridge_kernel saxpy_binding;")
	assert.Contains(t, h, "static inline cubridge_status saxpy_call(cubridge_view* x, cubridge_view* y, double a, cubridge_stream stream)")
	c := genSource(decls, []string{"out/saxpy.bind.h"})
	assert.Contains(t, c, "return saxpy_entry(l, l->arrays[0], l->arrays[1], l->scalars[2].f, l->dims[0]);")
	assert.Contains(t, c, `{"y", 3, 0u, 0, 1, {-1}, -1}, /* saxpy.bind:7 */`)
	py := genPython(decls, []string{"out/saxpy.bind.h"}, "pkg._saxpy")
	assert.Contains(t, py, `"saxpy($module, x, y, a, *, stream=None)\n--\n\ny = a*x + y, in place.`)
	assert.Contains(t, py, "PyMODINIT_FUNC PyInit__saxpy(void)")
	stub := genStub(decls, "pkg._saxpy")
	assert.Contains(t, stub, "def saxpy(x: ArrayLike, y: ArrayLike, a: float, *, stream: Stream = None) -> ArrayLike:")
	g := gofmt(genGo(decls, "saxpy"))
	assert.Contains(t, g, "func Saxpy[T float32 | float64](x []T, y []T, a float64) error {")
	assert.Contains(t, g, "func SaxpyBuffer[T float32 | float64](x *cubridge.Buffer[T], y *cubridge.Buffer[T], a float64, stream *cubridge.Stream) error {")
	test := genCCTest(decls, []string{"out/saxpy.bind.h"})
	assert.Contains(t, test, `Expect("saxpy refuses int32 for 'x'", saxpy_call(&x.v, &y.v, 1.0, nullptr), CUBRIDGE_ERR_UNSUPPORTED_DTYPE`)
	assert.Contains(t, test, `Expect("saxpy refuses 'y' against n"`)
	doc := genDoc(decls, "pkg._saxpy", "example.com/saxpy", "saxpy")
	assert.Contains(t, doc, "| `x` | in | float32 or float64 | `[n]` |")
}

// A dtype set Go has no type for leaves the kernel without Go functions, said so.
func TestGoWithoutAGoType(t *testing.T) {
	d, err := parseDecl("h.bind", "kernel h\nentry e\nin x bfloat16 [n]\n")
	require.NoError(t, err)
	g := gofmt(genGo([]*Decl{d}, "h"))
	assert.Contains(t, g, "// h has no Go function: 'x' takes bfloat16, which Go has no type for.")
	assert.NotContains(t, g, "func H")
}
