package cubridge_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

var allocators = map[string]func(n int) (*cubridge.Buffer[float32], error){
	"device":  func(n int) (*cubridge.Buffer[float32], error) { return cubridge.NewDevice[float32](n) },
	"managed": func(n int) (*cubridge.Buffer[float32], error) { return cubridge.NewManaged[float32](n) },
	"pinned":  func(n int) (*cubridge.Buffer[float32], error) { return cubridge.NewPinned[float32](n) },
}

func TestBufferKinds(t *testing.T) {
	for name, alloc := range allocators {
		t.Run(name, func(t *testing.T) {
			b, err := alloc(5)
			require.NoError(t, err)
			assert.Equal(t, 5, b.Len())
			assert.Equal(t, name, b.Kind().String())
			assert.Equal(t, cubridge.Float32, b.DType())
			in := []float32{1, 2, 3, 4, 5}
			require.NoError(t, b.CopyFrom(in))
			out := make([]float32, 5)
			require.NoError(t, b.CopyTo(out))
			assert.Equal(t, in, out)
			require.NoError(t, b.Free())
			assert.Equal(t, 0, b.Len(), "a freed buffer is empty")
			require.NoError(t, b.Free(), "double Free is harmless")
		})
	}
}

func TestBufferZeroLength(t *testing.T) {
	b, err := cubridge.NewDevice[int64](0)
	require.NoError(t, err)
	assertEmptyBufferOps(t, b)
}

func TestBufferBadInput(t *testing.T) {
	_, err := cubridge.NewDevice[float64](-1)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	_, err = cubridge.NewPinned[int64](1 << 62)
	assert.ErrorIs(t, err, cubridge.ErrOutOfMemory, "size overflow")

	b := newDeviceFrom(t, []float32{1, 2, 3})
	assert.ErrorIs(t, b.CopyFrom([]float32{1, 2}), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, b.CopyTo(make([]float32, 4)), cubridge.ErrInvalidArgument)

	short := newDeviceFrom(t, []float32{1, 2})
	assert.ErrorIs(t, cubridge.AddBuffer(b, b, short, nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, cubridge.AxpyBuffer(2, short, b, nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, cubridge.Copy(b, short, nil), cubridge.ErrInvalidArgument)
	_, err = cubridge.DotBuffer(b, short, nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	ib, err := cubridge.NewDevice[int32](2)
	require.NoError(t, err)
	defer ib.Free()
	assert.ErrorIs(t, cubridge.ConvertBuffer(ib, b, nil), cubridge.ErrInvalidArgument)

	// nil buffers are errors that name the argument, never panics.
	var nilBuf *cubridge.Buffer[float32]
	err = cubridge.AddBuffer(b, nilBuf, b, nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "a is a nil buffer")
	assert.ErrorIs(t, cubridge.FillBuffer(nilBuf, 1, nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, nilBuf.CopyFrom(nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, nilBuf.CopyTo(nil), cubridge.ErrInvalidArgument)
	_, err = cubridge.SumBuffer(nilBuf, nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	_, err = cubridge.DotBuffer(b, nilBuf, nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Equal(t, 0, nilBuf.Len())
	assert.Equal(t, cubridge.HostMemory, nilBuf.Kind())
	assert.NoError(t, nilBuf.Free())
	_, err = nilBuf.HostSlice()
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
}

func TestBufferUseAfterFree(t *testing.T) {
	b, err := cubridge.NewDevice[float32](3)
	require.NoError(t, err)
	other := newDeviceFrom(t, []float32{1, 2, 3})
	require.NoError(t, b.Free())

	err = b.CopyFrom([]float32{1, 2, 3})
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "already freed")
	assert.ErrorIs(t, b.CopyTo(make([]float32, 3)), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, cubridge.AddBuffer(other, b, other, nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, cubridge.AddBuffer(b, other, other, nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, cubridge.Copy(other, b, nil), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, b.Prefetch(0, nil), cubridge.ErrInvalidArgument)
	_, err = cubridge.MaxBuffer(b, nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
}

func TestBufferOps(t *testing.T) {
	testAllTypes(t, testBufferOps[float32], testBufferOps[float64], testBufferOps[int32], testBufferOps[int64])
}

func testBufferOps[T cubridge.Number](t *testing.T) {
	s := openForTest(t, cubridge.NewStream)
	for _, stream := range []*cubridge.Stream{nil, s} {
		n := 10_007
		a, b := sample[T](n, 1), sample[T](n, 2)
		ab, bb := newDeviceFrom(t, a), newDeviceFrom(t, b)
		out, err := cubridge.NewDevice[T](n)
		require.NoError(t, err)
		defer out.Free()
		got := make([]T, n)
		read := func() []T {
			require.NoError(t, stream.Synchronize())
			require.NoError(t, out.CopyTo(got))
			return got
		}
		for _, op := range []string{"add", "sub", "mul"} {
			var err error
			switch op {
			case "add":
				err = cubridge.AddBuffer(out, ab, bb, stream)
			case "sub":
				err = cubridge.SubBuffer(out, ab, bb, stream)
			case "mul":
				err = cubridge.MulBuffer(out, ab, bb, stream)
			}
			require.NoError(t, err, op)
			assertSame(t, refBinary(op, a, b, 0), read(), op)
		}
		require.NoError(t, cubridge.DivBuffer(out, ab, bb, 9, stream))
		assertSame(t, refBinary("div", a, b, 9), read(), "div")

		require.NoError(t, cubridge.Copy(out, bb, stream))
		require.NoError(t, cubridge.AxpyBuffer(T(2), ab, out, stream))
		assertSame(t, refAxpy(T(2), a, b), read(), "axpy")

		require.NoError(t, cubridge.ScaleBuffer(T(-3), out, stream))
		assertSame(t, refScale(T(-3), refAxpy(T(2), a, b)), read(), "scale")

		require.NoError(t, cubridge.FillBuffer(out, T(7), stream))
		want := make([]T, n)
		for i := range want {
			want[i] = 7
		}
		assertSame(t, want, read(), "fill")

		mn, err := cubridge.MinBuffer(ab, stream)
		require.NoError(t, err)
		assert.Equal(t, refMinMax(a, false), mn)
		mx, err := cubridge.MaxBuffer(ab, stream)
		require.NoError(t, err)
		assert.Equal(t, refMinMax(a, true), mx)
		assertSumDot(t, "buffers", a, b, ab, bb, "buffers")
	}
}

func TestBufferStreamReductions(t *testing.T) {
	s := openForTest(t, cubridge.NewStream)
	x := newDeviceFrom(t, []float64{1, 2, 3})
	sum, err := cubridge.SumBuffer(x, s)
	require.NoError(t, err)
	assert.Equal(t, 6.0, sum)
	i := newDeviceFrom(t, []int32{4, -5})
	dot, err := cubridge.DotIntBuffer(i, i, s)
	require.NoError(t, err)
	assert.Equal(t, int64(41), dot)
}

func TestConvertBuffer(t *testing.T) {
	src := newDeviceFrom(t, []float32{1.5, -2.5, 3e9})
	dst, err := cubridge.NewDevice[int32](3)
	require.NoError(t, err)
	defer dst.Free()
	require.NoError(t, cubridge.ConvertBuffer(dst, src, nil))
	got := make([]int32, 3)
	require.NoError(t, dst.CopyTo(got))
	assert.Equal(t, []int32{1, -2, 2147483647}, got)
}

func TestCopyBetweenKinds(t *testing.T) {
	in := []int32{5, 6, 7, 8}
	pinned, err := cubridge.NewPinned[int32](4)
	require.NoError(t, err)
	defer pinned.Free()
	managed, err := cubridge.NewManaged[int32](4)
	require.NoError(t, err)
	defer managed.Free()
	dev, err := cubridge.NewDevice[int32](4)
	require.NoError(t, err)
	defer dev.Free()
	s := openForTest(t, cubridge.NewStream)

	require.NoError(t, pinned.CopyFrom(in))
	require.NoError(t, cubridge.Copy(dev, pinned, s))
	require.NoError(t, cubridge.Copy(managed, dev, s))
	require.NoError(t, managed.Prefetch(cubridge.HostDevice, s))
	require.NoError(t, s.Synchronize())
	out := make([]int32, 4)
	require.NoError(t, managed.CopyTo(out))
	assert.Equal(t, in, out)

	err = dev.Prefetch(0, s)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, "only managed memory prefetches")
	assert.ErrorContains(t, err, "managed")
}

func TestHostSlice(t *testing.T) {
	for _, alloc := range []func(int, ...cubridge.AllocOption) (*cubridge.Buffer[float64], error){
		cubridge.NewPinned[float64], cubridge.NewManaged[float64],
	} {
		b, err := alloc(3)
		require.NoError(t, err)
		h, err := b.HostSlice()
		require.NoError(t, err)
		require.Len(t, h, 3)
		copy(h, []float64{1, 2, 3})
		require.NoError(t, cubridge.ScaleBuffer(2, b, nil))
		require.NoError(t, cubridge.Synchronize())
		assert.Equal(t, []float64{2, 4, 6}, h)
		require.NoError(t, b.Free())
		_, err = b.HostSlice()
		assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	}
	d, err := cubridge.NewDevice[float64](3)
	require.NoError(t, err)
	defer d.Free()
	_, err = d.HostSlice()
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument, "device memory is not host-addressable")
}

func TestBufferCleanup(t *testing.T) {
	// Unreachable, unfreed buffers are released by the garbage collector.
	for i := 0; i < 100; i++ {
		_, err := cubridge.NewDevice[float32](1 << 16)
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.GC()
}
