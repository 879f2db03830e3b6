package cubridge_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// Buffers are the C runtime's arrays (cubridge/runtime.h), as Python's Arrays
// are: an operation waits for the buffer's last write on another stream, and
// freed memory is reused only after its uses. Streams of NewStream are not
// ordered with each other by CUDA, so these fail without the runtime's events
// (they did before issue 41) on a GPU; on the CPU backend every operation has
// finished when it returns.

const busyLen = 64 << 20 // 256 MiB of float32: each fill of it keeps a stream busy a while

// busy queues work on s that keeps it busy for a few milliseconds.
func busy(t *testing.T, s *cubridge.Stream) {
	t.Helper()
	scratch, err := cubridge.NewDevice[float32](busyLen, cubridge.OnStream(s))
	require.NoError(t, err)
	for i := 0; i < 24; i++ {
		require.NoError(t, cubridge.FillBuffer(scratch, float32(i), s))
	}
	require.NoError(t, scratch.Free(), "freed while its fills run: reused only after them")
}

func TestBufferReadOnAnotherStreamWaitsForTheWrite(t *testing.T) {
	if !onCUDA(t) {
		t.Skip("needs the CUDA backend: CPU operations finish before they return")
	}
	a := openForTest(t, cubridge.NewStream)
	b := openForTest(t, cubridge.NewStream)
	const n = 16 << 20
	x, err := cubridge.NewDevice[float32](n)
	require.NoError(t, err)
	defer x.Free()
	require.NoError(t, cubridge.FillBuffer(x, 0, nil))
	require.NoError(t, cubridge.Synchronize())
	busy(t, a)
	require.NoError(t, cubridge.FillBuffer(x, 1, a))
	sum, err := cubridge.SumBuffer(x, b) // on another stream, right away
	require.NoError(t, err)
	assert.Equal(t, float64(n), sum, "the read on b overtook the write on a")
}

func TestFreedBufferIsReusedOnlyAfterItsUses(t *testing.T) {
	if !onCUDA(t) {
		t.Skip("needs the CUDA backend: CPU operations finish before they return")
	}
	a := openForTest(t, cubridge.NewStream)
	b := openForTest(t, cubridge.NewStream)
	const n = 4 << 20 // 16 MiB: a size the block cache keeps
	x, err := cubridge.NewDevice[float32](n, cubridge.OnStream(a))
	require.NoError(t, err)
	require.NoError(t, cubridge.FillBuffer(x, 5, a))
	copied, err := cubridge.NewDevice[float32](n, cubridge.OnStream(b))
	require.NoError(t, err)
	defer copied.Free()
	busy(t, b)
	require.NoError(t, cubridge.Copy(copied, x, b)) // reads x on b, behind the busy work
	require.NoError(t, x.Free())
	// A new buffer of x's size on a: before issue 41 it got x's block from a's
	// cache at once, and its fill ran while b still read x.
	y, err := cubridge.NewDevice[float32](n, cubridge.OnStream(a))
	require.NoError(t, err)
	defer y.Free()
	require.NoError(t, cubridge.FillBuffer(y, 9, a))
	sum, err := cubridge.SumBuffer(copied, b)
	require.NoError(t, err)
	assert.Equal(t, 5.0*n, sum, "x's memory was written before its last read")
}

func TestGraphLaunchWaitsForItsBuffersWriters(t *testing.T) {
	if !onCUDA(t) {
		t.Skip("graphs need the CUDA backend")
	}
	a := openForTest(t, cubridge.NewStream)
	rec := openForTest(t, cubridge.NewStream)
	const n = 16 << 20
	x, err := cubridge.NewDevice[float32](n)
	require.NoError(t, err)
	defer x.Free()
	g, err := rec.Capture(func() error { return cubridge.ScaleBuffer(2, x, rec) })
	require.NoError(t, err)
	defer g.Close()
	busy(t, a)
	require.NoError(t, cubridge.FillBuffer(x, 3, a))
	require.NoError(t, g.Launch(rec)) // after the fill on a, through the runtime's event
	sum, err := cubridge.SumBuffer(x, rec)
	require.NoError(t, err)
	assert.Equal(t, 6.0*n, sum, "the launch overtook the fill")
}

func TestHostSliceWaitsForTheBuffersWork(t *testing.T) {
	s := openForTest(t, cubridge.NewStream)
	p, err := cubridge.NewPinned[float32](1 << 20)
	require.NoError(t, err)
	defer p.Free()
	require.NoError(t, cubridge.FillBuffer(p, 7, s))
	h, err := p.HostSlice() // no Synchronize: HostSlice waits for the fill
	require.NoError(t, err)
	assert.Equal(t, float32(7), h[0])
	assert.Equal(t, float32(7), h[len(h)-1])
}

func TestScratchBytesCountTheHostPath(t *testing.T) {
	a := make([]float32, 6<<20) // 3 x 24 MiB: the staged path on a GPU
	for i := range a {
		a[i] = 1
	}
	require.NoError(t, cubridge.Add(a, a, a))
	assert.Equal(t, float32(2), a[len(a)-1])
	st, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	if !onCUDA(t) {
		assert.Zero(t, st.ScratchBytes, "the CPU backend stages nothing")
		return
	}
	assert.GreaterOrEqual(t, st.ScratchBytes, uint64(9*(4<<20)), "3 slots x 3 buffers of 4 MiB")
	require.NoError(t, cubridge.EmptyCache(-1))
	after, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	assert.Less(t, after.ScratchBytes, st.ScratchBytes, "EmptyCache returns idle staging")
}

// A record callback that panics, or closes its stream, leaves no recording
// behind: the stream works on (or is closed), and frees are not held back.
func TestCaptureEndsWhateverTheCallbackDoes(t *testing.T) {
	if !onCUDA(t) {
		t.Skip("graphs need the CUDA backend")
	}
	s := openForTest(t, cubridge.NewStream)
	x, err := cubridge.NewDevice[float32](1024)
	require.NoError(t, err)
	defer x.Free()
	func() {
		defer func() { assert.Equal(t, "boom", recover()) }()
		_, _ = s.Capture(func() error { panic("boom") })
	}()
	require.NoError(t, cubridge.FillBuffer(x, 2, s), "the stream records no more")
	sum, err := cubridge.SumBuffer(x, s)
	require.NoError(t, err)
	assert.Equal(t, 2048.0, sum)

	c, err := cubridge.NewStream()
	require.NoError(t, err)
	y, err := cubridge.NewDevice[float32](1024)
	require.NoError(t, err)
	before, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	_, err = c.Capture(func() error {
		require.NoError(t, y.Free()) // held back: the recording would end
		return c.Close()
	})
	assert.Error(t, err, "the recording ended with its stream")
	after, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	assert.Equal(t, before.InUseBytes-4096, after.InUseBytes, "the held free went ahead")
}

// TestHostOpAfterBufferCopy: Copy between two device Buffers is a runtime
// call over one device's memory that runs no op, so the device hint its call
// gives is never taken. It must end with the call: else the next host-slice
// op on the same OS thread ran as a kernel on Go memory (zeros, then an
// illegal address: issue 41's two-GPU failure after TestCommLocal's
// collectives, whose calls give the hint the same way).
func TestHostOpAfterBufferCopy(t *testing.T) {
	if b, err := cubridge.Backend(); err != nil || b != cubridge.BackendCUDA {
		t.Skip("needs the CUDA backend: on the CPU backend every pointer is host memory")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const n = 1 << 22
	src, err := cubridge.NewDevice[float32](n)
	require.NoError(t, err)
	defer src.Free()
	dst, err := cubridge.NewDevice[float32](n)
	require.NoError(t, err)
	defer dst.Free()
	require.NoError(t, cubridge.Copy(dst, src, nil))
	host := make([]float32, n)
	for i := range host {
		host[i] = 1
	}
	require.NoError(t, cubridge.Scale(3, host))
	assert.Equal(t, float32(3), host[0])
	assert.Equal(t, float32(3), host[n-1])
	require.NoError(t, cubridge.Synchronize())
}
