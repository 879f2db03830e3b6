package cubridge_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// badCall is one call with a bad input and the error it must give.
type badCall struct {
	name string
	want error // a sentinel (errors.Is) or a context error
	call func() error
}

// walkFixture holds the objects a bad call needs: live, freed and closed
// buffers, streams and events of every length the table uses.
type walkFixture struct {
	buf, buf2, short, freed *cubridge.Buffer[float32]
	ibuf                    *cubridge.Buffer[int64]
	dev                     *cubridge.Buffer[float32]
	stream, closedStream    *cubridge.Stream
	event, closedEvent      *cubridge.Event
	cancelled               context.Context
}

func newWalkFixture(t *testing.T) *walkFixture {
	t.Helper()
	f := &walkFixture{}
	var err error
	mk := func(n int) *cubridge.Buffer[float32] {
		b, err := cubridge.NewManaged[float32](n)
		require.NoError(t, err)
		t.Cleanup(func() { b.Free() })
		return b
	}
	f.buf, f.buf2, f.short, f.freed = mk(8), mk(8), mk(7), mk(8)
	require.NoError(t, f.freed.Free())
	f.dev, err = cubridge.NewDevice[float32](8)
	require.NoError(t, err)
	t.Cleanup(func() { f.dev.Free() })
	f.ibuf, err = cubridge.NewPinned[int64](8)
	require.NoError(t, err)
	t.Cleanup(func() { f.ibuf.Free() })
	f.stream = openForTest(t, cubridge.NewStream)
	f.closedStream, err = cubridge.NewStream()
	require.NoError(t, err)
	require.NoError(t, f.closedStream.Close())
	f.event = openForTest(t, cubridge.NewEvent)
	f.closedEvent, err = cubridge.NewEvent()
	require.NoError(t, err)
	require.NoError(t, f.closedEvent.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.cancelled = ctx
	return f
}

var (
	inv = cubridge.ErrInvalidArgument
	oom = cubridge.ErrOutOfMemory
)

// apiTable maps every exported function and method (as "Name" or
// "Type.Method") to its bad calls. An entry with no bad calls is a function
// that takes no input that can be bad (Version, String methods): it is still
// listed so that TestAPIWalkCoversEverything notices new API.
func apiTable(f *walkFixture) map[string][]badCall {
	s8, s7 := make([]float32, 8), make([]float32, 7)
	i8 := make([]int64, 8)
	big := []int64{1 << 62, 3}
	var nilStream *cubridge.Stream
	var nilBuf *cubridge.Buffer[float32]
	var nilEvent *cubridge.Event
	over := make([]float32, 9) // over[0:8] and over[1:9] overlap partially
	binarySlices := func(op func(dst, a, b []float32) error) []badCall {
		return []badCall{
			{"dst short", inv, func() error { return op(s7, s8, s8) }},
			{"a short", inv, func() error { return op(s8, s7, s8) }},
			{"b short", inv, func() error { return op(s8, s8, s7) }},
			{"nil a", inv, func() error { return op(s8, nil, s8) }},
			{"overlap", inv, func() error { return op(over[1:9], over[0:8], s8) }},
		}
	}
	binaryCtx := func(op func(ctx context.Context, dst, a, b []float32) error) []badCall {
		return append(binarySlices(func(dst, a, b []float32) error { return op(context.Background(), dst, a, b) }),
			badCall{"nil ctx", inv, func() error { return op(nil, s8, s8, s8) }}, //nolint:staticcheck // on purpose
			badCall{"cancelled", context.Canceled, func() error { return op(f.cancelled, s8, s8, s8) }})
	}
	binaryBuf := func(op func(dst, a, b *cubridge.Buffer[float32], s *cubridge.Stream) error) []badCall {
		return []badCall{
			{"nil dst", inv, func() error { return op(nil, f.buf, f.buf, nil) }},
			{"nil a", inv, func() error { return op(f.buf, nilBuf, f.buf, nil) }},
			{"freed b", inv, func() error { return op(f.buf, f.buf, f.freed, nil) }},
			{"freed dst", inv, func() error { return op(f.freed, f.buf, f.buf, nil) }},
			{"short a", inv, func() error { return op(f.buf, f.short, f.buf, nil) }},
			{"short dst", inv, func() error { return op(f.short, f.buf, f.buf, nil) }},
			{"closed stream", inv, func() error { return op(f.buf, f.buf, f.buf2, f.closedStream) }},
		}
	}
	reduceSlice := func(op func(x []float32) error) []badCall {
		return []badCall{{"nil", nil, func() error { return op(nil) }}}
	}
	reduceBuf := func(op func(x *cubridge.Buffer[float32], s *cubridge.Stream) error) []badCall {
		return []badCall{
			{"nil", inv, func() error { return op(nil, nil) }},
			{"freed", inv, func() error { return op(f.freed, nil) }},
			{"closed stream", inv, func() error { return op(f.buf, f.closedStream) }},
		}
	}
	dotBuf := func(op func(x, y *cubridge.Buffer[float32], s *cubridge.Stream) error) []badCall {
		return append(reduceBuf(func(x *cubridge.Buffer[float32], s *cubridge.Stream) error { return op(x, f.buf, s) }),
			badCall{"nil y", inv, func() error { return op(f.buf, nil, nil) }},
			badCall{"freed y", inv, func() error { return op(f.buf, f.freed, nil) }},
			badCall{"short y", inv, func() error { return op(f.buf, f.short, nil) }})
	}
	alloc := func(op func(n int) error) []badCall {
		return []badCall{
			{"negative", inv, func() error { return op(-1) }},
			{"overflow", oom, func() error { return op(math.MaxInt) }},
			{"huge", oom, func() error { return op(1 << 58) }},
		}
	}
	e := func(err error) error { return err }
	ignore1 := func(_ any, err error) error { return err }

	table := map[string][]badCall{
		"Version":            nil,
		"CUDAVersion":        nil,
		"DriverVersion":      nil,
		"Backend":            nil,
		"BackendKind.String": nil,
		"Devices":            nil,
		"MemInfo":            nil,
		"Synchronize":        nil,
		"Shutdown":           nil,
		"DTypeOf":            nil,
		"DType.String":       nil,
		"DType.Size":         nil,
		"Status.String":      nil,
		"Status.Sentinel":    nil,
		"Statuses":           nil,
		"DTypes":             nil,
		"MemoryKind.String":  nil,
		"Error.Error":        nil,
		"Error.Unwrap":       nil,
		"Add":                binarySlices(cubridge.Add[float32]),
		"Sub":                binarySlices(cubridge.Sub[float32]),
		"Mul":                binarySlices(cubridge.Mul[float32]),
		"Div":                binarySlices(func(d, a, b []float32) error { return cubridge.Div(d, a, b, 0) }),
		"AddContext":         binaryCtx(cubridge.AddContext[float32]),
		"SubContext":         binaryCtx(cubridge.SubContext[float32]),
		"MulContext":         binaryCtx(cubridge.MulContext[float32]),
		"DivContext":         binaryCtx(func(ctx context.Context, d, a, b []float32) error { return cubridge.DivContext(ctx, d, a, b, 0) }),
		"Axpy": {
			{"short y", inv, func() error { return cubridge.Axpy(1, s8, s7) }},
			{"overlap", inv, func() error { return cubridge.Axpy(1, over[0:8], over[1:9]) }},
			{"int64 alpha beyond 2^53", inv, func() error { return cubridge.Axpy(1<<62+1, i8, i8) }},
		},
		"AxpyContext": {
			{"nil ctx", inv, func() error { return cubridge.AxpyContext(nil, 1, s8, s8) }}, //nolint:staticcheck
			{"cancelled", context.Canceled, func() error { return cubridge.AxpyContext(f.cancelled, 1, s8, s8) }},
		},
		"Scale": {{"int64 alpha beyond 2^53", inv, func() error { return cubridge.Scale(big[0]+1, i8) }}},
		"ScaleContext": {
			{"cancelled", context.Canceled, func() error { return cubridge.ScaleContext(f.cancelled, 2, s8) }},
		},
		"Fill": {{"int64 value beyond 2^53", inv, func() error { return cubridge.Fill(i8, big[0]+1) }}},
		"FillContext": {
			{"nil ctx", inv, func() error { return cubridge.FillContext(nil, s8, 1) }}, //nolint:staticcheck
		},
		"Convert": {
			{"short", inv, func() error { return cubridge.Convert(make([]float64, 7), s8) }},
			{"overlap", inv, func() error {
				raw := make([]float64, 8)
				src := unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), 16)[1:9]
				return cubridge.Convert(raw, src)
			}},
		},
		"ConvertContext": {
			{"cancelled", context.Canceled, func() error { return cubridge.ConvertContext(f.cancelled, make([]float64, 8), s8) }},
		},
		"Sum":       reduceSlice(func(x []float32) error { return ignore1(cubridge.Sum(x)) }),
		"SumInt":    {{"nil", nil, func() error { return ignore1(cubridge.SumInt([]int32(nil))) }}},
		"Dot":       {{"short y", inv, func() error { return ignore1(cubridge.Dot(s8, s7)) }}},
		"DotInt":    {{"short y", inv, func() error { return ignore1(cubridge.DotInt(i8, i8[:7])) }}},
		"Min":       {{"empty", inv, func() error { return ignore1(cubridge.Min([]float32{})) }}},
		"Max":       {{"nil", inv, func() error { return ignore1(cubridge.Max([]int64(nil))) }}},
		"AddBuffer": binaryBuf(cubridge.AddBuffer[float32]),
		"SubBuffer": binaryBuf(cubridge.SubBuffer[float32]),
		"MulBuffer": binaryBuf(cubridge.MulBuffer[float32]),
		"DivBuffer": binaryBuf(func(d, a, b *cubridge.Buffer[float32], s *cubridge.Stream) error {
			return cubridge.DivBuffer(d, a, b, 0, s)
		}),
		"AxpyBuffer": {
			{"nil x", inv, func() error { return cubridge.AxpyBuffer(1, nil, f.buf, nil) }},
			{"freed y", inv, func() error { return cubridge.AxpyBuffer(1, f.buf, f.freed, nil) }},
			{"short x", inv, func() error { return cubridge.AxpyBuffer(1, f.short, f.buf, nil) }},
			{"closed stream", inv, func() error { return cubridge.AxpyBuffer(1, f.buf, f.buf2, f.closedStream) }},
			{"int64 alpha beyond 2^53", inv, func() error { return cubridge.AxpyBuffer(1<<62+1, f.ibuf, f.ibuf, nil) }},
		},
		"ScaleBuffer": {
			{"nil", inv, func() error { return cubridge.ScaleBuffer(2, nilBuf, nil) }},
			{"freed", inv, func() error { return cubridge.ScaleBuffer(2, f.freed, nil) }},
			{"int64 alpha beyond 2^53", inv, func() error { return cubridge.ScaleBuffer(1<<62+1, f.ibuf, nil) }},
		},
		"FillBuffer": {
			{"nil", inv, func() error { return cubridge.FillBuffer(nilBuf, 1, nil) }},
			{"freed", inv, func() error { return cubridge.FillBuffer(f.freed, 1, nil) }},
			{"closed stream", inv, func() error { return cubridge.FillBuffer(f.buf, 1, f.closedStream) }},
		},
		"ConvertBuffer": {
			{"nil dst", inv, func() error { return cubridge.ConvertBuffer[int64](nil, f.buf, nil) }},
			{"freed src", inv, func() error { return cubridge.ConvertBuffer(f.ibuf, f.freed, nil) }},
			{"short src", inv, func() error { return cubridge.ConvertBuffer(f.ibuf, f.short, nil) }},
		},
		"SumBuffer":    reduceBuf(func(x *cubridge.Buffer[float32], s *cubridge.Stream) error { return ignore1(cubridge.SumBuffer(x, s)) }),
		"SumIntBuffer": {{"nil", inv, func() error { return ignore1(cubridge.SumIntBuffer[int64](nil, nil)) }}},
		"DotBuffer": dotBuf(func(x, y *cubridge.Buffer[float32], s *cubridge.Stream) error {
			return ignore1(cubridge.DotBuffer(x, y, s))
		}),
		"DotIntBuffer": {{"nil y", inv, func() error { return ignore1(cubridge.DotIntBuffer(f.ibuf, nil, nil)) }}},
		"MinBuffer":    reduceBuf(func(x *cubridge.Buffer[float32], s *cubridge.Stream) error { return ignore1(cubridge.MinBuffer(x, s)) }),
		"MaxBuffer":    reduceBuf(func(x *cubridge.Buffer[float32], s *cubridge.Stream) error { return ignore1(cubridge.MaxBuffer(x, s)) }),
		"NewDevice":    alloc(func(n int) error { return ignore1(cubridge.NewDevice[float64](n)) }),
		"NewManaged":   alloc(func(n int) error { return ignore1(cubridge.NewManaged[float64](n)) }),
		"NewPinned":    alloc(func(n int) error { return ignore1(cubridge.NewPinned[int32](n)) }),
		"Buffer.Len":   nil, // nil and freed buffers report 0 (checked in TestAPIWalkNilReceivers)
		"Buffer.Kind":  nil,
		"Buffer.DType": nil,
		"Buffer.Free":  nil, // double free is a no-op (checked in TestAPIWalkNilReceivers)
		"Buffer.CopyFrom": {
			{"nil buffer", inv, func() error { return nilBuf.CopyFrom(s8) }},
			{"freed", inv, func() error { return f.freed.CopyFrom(s8) }},
			{"short slice", inv, func() error { return f.buf.CopyFrom(s7) }},
		},
		"Buffer.CopyTo": {
			{"nil buffer", inv, func() error { return nilBuf.CopyTo(s8) }},
			{"freed", inv, func() error { return f.freed.CopyTo(s8) }},
			{"long slice", inv, func() error { return f.buf.CopyTo(make([]float32, 9)) }},
		},
		"Buffer.Prefetch": {
			{"device memory", inv, func() error { return f.dev.Prefetch(0, nil) }},
			{"freed", inv, func() error { return f.freed.Prefetch(0, nil) }},
			{"closed stream", inv, func() error { return f.buf.Prefetch(cubridge.HostDevice, f.closedStream) }},
		},
		"Buffer.HostSlice": {
			{"device memory", inv, func() error { return ignore1(f.dev.HostSlice()) }},
			{"freed", inv, func() error { return ignore1(f.freed.HostSlice()) }},
			{"nil", inv, func() error { return ignore1(nilBuf.HostSlice()) }},
		},
		"Copy": {
			{"nil dst", inv, func() error { return cubridge.Copy(nil, f.buf, nil) }},
			{"freed src", inv, func() error { return cubridge.Copy(f.buf, f.freed, nil) }},
			{"short", inv, func() error { return cubridge.Copy(f.buf, f.short, nil) }},
			{"closed stream", inv, func() error { return cubridge.Copy(f.buf, f.buf2, f.closedStream) }},
		},
		"NewStream":        nil,
		"StreamFromHandle": nil, // any handle is a valid cudaStream_t to wrap; the CPU backend ignores it
		"Stream.Synchronize": {
			{"closed", inv, func() error { return f.closedStream.Synchronize() }},
		},
		"Stream.Query": {
			{"closed", inv, func() error { return ignore1(f.closedStream.Query()) }},
		},
		"Stream.Handle": {
			{"closed", inv, func() error { return ignore1(f.closedStream.Handle()) }},
		},
		"Stream.Close": nil, // nil and closed streams: no-ops (TestAPIWalkNilReceivers)
		"Stream.Capture": {
			{"nil stream", inv, func() error { return ignore1(nilStream.Capture(func() error { return nil })) }},
			{"closed stream", inv, func() error { return ignore1(f.closedStream.Capture(func() error { return nil })) }},
			{"nil record", inv, func() error { return ignore1(f.stream.Capture(nil)) }},
		},
		"Graph.Launch": {
			{"nil graph", inv, func() error { return (*cubridge.Graph)(nil).Launch(nil) }},
		},
		"Graph.Close": nil, // a nil graph: a no-op
		"NewEvent":    nil,
		"Event.Record": {
			{"nil event", inv, func() error { return nilEvent.Record(nil) }},
			{"closed event", inv, func() error { return f.closedEvent.Record(nil) }},
			{"closed stream", inv, func() error { return f.event.Record(f.closedStream) }},
		},
		"Event.Synchronize": {
			{"nil", inv, func() error { return nilEvent.Synchronize() }},
			{"closed", inv, func() error { return f.closedEvent.Synchronize() }},
		},
		"Event.Close": nil,
		"Elapsed": {
			{"nil start", inv, func() error { return ignore1(cubridge.Elapsed(nil, f.event)) }},
			{"closed end", inv, func() error { return ignore1(cubridge.Elapsed(f.event, f.closedEvent)) }},
		},
		"_nilStream": {{"nil stream is the default stream", nil, func() error { return e(nilStream.Synchronize()) }}},
	}
	for _, rows := range []map[string][]badCall{commAPIRows(f), deviceAPIRows(f), kernelAPIRows(f)} { // comm_test.go, devices_test.go, kernel_test.go
		for name, calls := range rows {
			table[name] = calls
		}
	}
	return table
}

// TestAPIWalk makes every bad call of the table and checks its error; after
// each one the library must still compute a right answer.
func TestAPIWalk(t *testing.T) {
	f := newWalkFixture(t)
	tried := 0
	for name, calls := range apiTable(f) {
		for _, c := range calls {
			err := c.call()
			tried++
			switch {
			case c.want == nil:
				assert.NoError(t, err, "%s: %s", name, c.name)
			default:
				if assert.ErrorIs(t, err, c.want, "%s: %s", name, c.name) {
					assert.NotEmpty(t, err.Error())
					var ce *cubridge.Error
					if errors.As(err, &ce) {
						assert.NotEmpty(t, ce.Msg, "%s: %s: a message says why", name, c.name)
					}
				}
			}
			stillWorks(t)
		}
	}
	t.Logf("bad calls tried: %d", tried)
}

// stillWorks checks one slice op and one buffer op give right answers.
func stillWorks(t *testing.T) {
	t.Helper()
	a := []float64{1, 2, 3}
	dst := make([]float64, 3)
	require.NoError(t, cubridge.Add(dst, a, a))
	require.Equal(t, []float64{2, 4, 6}, dst)
	b := newDeviceFrom(t, a)
	defer b.Free()
	s, err := cubridge.SumBuffer(b, nil)
	require.NoError(t, err)
	require.Equal(t, 6.0, s)
}

// TestAPIWalkNilReceivers: methods that are documented no-ops or zero on nil,
// freed and closed objects.
func TestAPIWalkNilReceivers(t *testing.T) {
	var b *cubridge.Buffer[float32]
	assert.Equal(t, 0, b.Len())
	assert.Equal(t, cubridge.HostMemory, b.Kind())
	assert.NoError(t, b.Free())
	live, err := cubridge.NewDevice[float32](4)
	require.NoError(t, err)
	require.NoError(t, live.Free())
	assert.NoError(t, live.Free(), "double free")
	assert.Equal(t, 0, live.Len())
	var s *cubridge.Stream
	assert.NoError(t, s.Close())
	var e *cubridge.Event
	assert.NoError(t, e.Close())
	st, err := cubridge.NewStream()
	require.NoError(t, err)
	require.NoError(t, st.Close())
	assert.NoError(t, st.Close(), "double close")
	stillWorks(t)
}

// TestAPIWalkZeroLength: every op on zero elements succeeds (min/max excepted).
func TestAPIWalkZeroLength(t *testing.T) {
	var z []float32
	assertEmptySliceOps(t, z, z)
	for _, alloc := range allocators {
		b, err := alloc(0)
		require.NoError(t, err)
		assertEmptyBufferOps(t, b)
	}
	stillWorks(t)
}

// TestAPIWalkCoversEverything lists the package's exported functions and
// methods from its sources and fails for any without a row in apiTable.
func TestAPIWalkCoversEverything(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	if len(files) == 0 {
		t.Skip("package sources are not in the runfiles")
	}
	fset := token.NewFileSet()
	var exported []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			key := fn.Name.Name
			if fn.Recv != nil {
				typ := fn.Recv.List[0].Type
				if star, ok := typ.(*ast.StarExpr); ok {
					typ = star.X
				}
				if idx, ok := typ.(*ast.IndexExpr); ok {
					typ = idx.X
				}
				recv := typ.(*ast.Ident).Name
				if !ast.IsExported(recv) {
					continue
				}
				key = recv + "." + key
			}
			exported = append(exported, key)
		}
	}
	table := apiTable(newWalkFixture(t))
	var missing []string
	for _, k := range exported {
		if _, ok := table[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "exported API without a row in apiTable (api_walk_test.go)")
	t.Logf("exported functions and methods walked: %d", len(exported))
}
