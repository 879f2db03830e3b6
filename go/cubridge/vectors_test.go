package cubridge_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// vectorCase is one record of the shared test vectors (tests/vectors/README.md).
type vectorCase struct {
	file, name, op string
	dtypes         []string // the dtype, or src and dst for convert
	a, b, want     []string
	alpha          string
}

// vectorsDir finds the shared vectors: $CUBRIDGE_VECTORS_DIR, else
// ../../tests/vectors from the package directory.
func vectorsDir(t testing.TB) string {
	if d := os.Getenv("CUBRIDGE_VECTORS_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "tests", "vectors")
}

func readVectors(t *testing.T) []vectorCase {
	files, err := filepath.Glob(filepath.Join(vectorsDir(t), "*.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no test vectors in %s (set CUBRIDGE_VECTORS_DIR)", vectorsDir(t))
	var cases []vectorCase
	for _, path := range files {
		f, err := os.Open(path)
		require.NoError(t, err)
		var c *vectorCase
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for line := 1; sc.Scan(); line++ {
			text, _, _ := strings.Cut(sc.Text(), "#")
			fields := strings.Fields(text)
			if len(fields) == 0 {
				continue
			}
			where := fmt.Sprintf("%s:%d", filepath.Base(path), line)
			if c == nil {
				require.True(t, fields[0] == "case" && len(fields) >= 4, "%s: want 'case NAME OP DTYPE', got %q", where, text)
				c = &vectorCase{file: filepath.Base(path), name: fields[1], op: fields[2], dtypes: fields[3:]}
				continue
			}
			switch fields[0] {
			case "a":
				c.a = fields[1:]
			case "b":
				c.b = fields[1:]
			case "want":
				c.want = fields[1:]
			case "alpha":
				require.Len(t, fields, 2, "%s: alpha takes one value", where)
				c.alpha = fields[1]
			case "end":
				cases = append(cases, *c)
				c = nil
			default:
				require.Failf(t, "bad vector line", "%s: %q", where, text)
			}
		}
		require.NoError(t, sc.Err())
		require.Nil(t, c, "%s: case without end", path)
		f.Close()
	}
	return cases
}

// parseValues parses decimal/inf/nan values as T (integers exactly).
func parseValues[T cubridge.Number](t testing.TB, vals []string) []T {
	t.Helper()
	out := make([]T, len(vals))
	for i, s := range vals {
		out[i] = parseValue[T](t, s)
	}
	return out
}

func parseValue[T cubridge.Number](t testing.TB, s string) T {
	t.Helper()
	if !isFloat[T]() {
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err, "integer value %q", s)
		return T(v)
	}
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, "float value %q", s)
	return T(v)
}

func TestVectors(t *testing.T) {
	cases := readVectors(t)
	for _, c := range cases {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			switch c.dtypes[0] {
			case "float32":
				runVector[float32](t, c)
			case "float64":
				runVector[float64](t, c)
			case "int32":
				runVector[int32](t, c)
			case "int64":
				runVector[int64](t, c)
			case "float16", "bfloat16":
				t.Skipf("dtype %s has no Go type", c.dtypes[0])
			default:
				t.Fatalf("unknown dtype %q", c.dtypes[0])
			}
		})
	}
}

// runVector runs one case through the slice API and the buffer API.
func runVector[T cubridge.Number](t *testing.T, c vectorCase) {
	a, b := parseValues[T](t, c.a), parseValues[T](t, c.b)
	var alpha T
	if c.alpha != "" {
		alpha = parseValue[T](t, c.alpha)
	}
	switch c.op {
	case "add", "sub", "mul", "div":
		want := parseValues[T](t, c.want)
		got := make([]T, len(a))
		require.NoError(t, sliceBinary(c.op, got, a, b, alpha))
		assertSame(t, want, got, "slices")
		got = make([]T, len(a))
		withBuffers(t, [][]T{a, b, got}, func(bs []*cubridge.Buffer[T]) error {
			return bufferBinary(c.op, bs[2], bs[0], bs[1], alpha)
		})
		assertSame(t, want, got, "buffers")
	case "axpy":
		want := parseValues[T](t, c.want)
		y := append([]T(nil), b...)
		require.NoError(t, cubridge.Axpy(alpha, a, y))
		assertSame(t, want, y, "slices")
		y = append([]T(nil), b...)
		withBuffers(t, [][]T{a, y}, func(bs []*cubridge.Buffer[T]) error {
			return cubridge.AxpyBuffer(alpha, bs[0], bs[1], nil)
		})
		assertSame(t, want, y, "buffers")
	case "scale", "fill":
		want := parseValues[T](t, c.want)
		x := append([]T(nil), a...)
		if x == nil {
			x = make([]T, len(want))
		}
		x2 := append([]T(nil), x...)
		if c.op == "scale" {
			require.NoError(t, cubridge.Scale(alpha, x))
		} else {
			require.NoError(t, cubridge.Fill(x, alpha))
		}
		assertSame(t, want, x, "slices")
		withBuffers(t, [][]T{x2}, func(bs []*cubridge.Buffer[T]) error {
			if c.op == "scale" {
				return cubridge.ScaleBuffer(alpha, bs[0], nil)
			}
			return cubridge.FillBuffer(bs[0], alpha, nil)
		})
		assertSame(t, want, x2, "buffers")
	case "sum", "dot", "min", "max":
		require.Len(t, c.want, 1, "a reduction wants one value")
		runReductionVector(t, c.op, a, b, c.want[0])
	case "convert":
		require.Len(t, c.dtypes, 2, "convert wants 'case NAME convert SRC DST'")
		switch c.dtypes[1] {
		case "float32":
			runConvertVector[float32](t, a, c.want)
		case "float64":
			runConvertVector[float64](t, a, c.want)
		case "int32":
			runConvertVector[int32](t, a, c.want)
		case "int64":
			runConvertVector[int64](t, a, c.want)
		default:
			t.Skipf("dtype %s has no Go type", c.dtypes[1])
		}
	default:
		t.Fatalf("op %q is not known to the Go tests", c.op)
	}
}

func runConvertVector[D, S cubridge.Number](t *testing.T, src []S, wantStr []string) {
	want := parseValues[D](t, wantStr)
	got := make([]D, len(src))
	require.NoError(t, cubridge.Convert(got, src))
	assertSame(t, want, got, "slices")

	sb := newDeviceFrom(t, src)
	db := newDeviceFrom(t, make([]D, len(src)))
	require.NoError(t, cubridge.ConvertBuffer(db, sb, nil))
	got = make([]D, len(src))
	require.NoError(t, db.CopyTo(got))
	assertSame(t, want, got, "buffers")
}

func runReductionVector[T cubridge.Number](t *testing.T, op string, x, y []T, wantStr string) {
	xb, yb := newDeviceFrom(t, x), newDeviceFrom(t, y)
	switch op {
	case "min", "max":
		want := parseValue[T](t, wantStr)
		got, err := sliceMinMax(op, x)
		require.NoError(t, err)
		assert.True(t, same(want, got), "slices: want %v, got %v", want, got)
		got, err = bufferMinMax(op, xb)
		require.NoError(t, err)
		assert.True(t, same(want, got), "buffers: want %v, got %v", want, got)
		return
	}
	if isFloat[T]() {
		want, err := strconv.ParseFloat(wantStr, 64)
		require.NoError(t, err)
		for _, path := range []string{"slices", "buffers"} {
			got, err := reduce[float64](op, path, x, y, xb, yb)
			require.NoError(t, err, path)
			assert.True(t, got == want || (math.IsNaN(got) && math.IsNaN(want)), "%s: want %v, got %v", path, want, got)
		}
		return
	}
	want, err := strconv.ParseInt(wantStr, 10, 64)
	require.NoError(t, err)
	for _, path := range []string{"slices", "buffers"} {
		got, err := reduce[int64](op, path, x, y, xb, yb)
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
	}
}
