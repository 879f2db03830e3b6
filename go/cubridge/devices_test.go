package cubridge_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// deviceAPIRows: bad calls of the device, stream-on-device and pool API for
// TestAPIWalk (refused alike on every backend).
func deviceAPIRows(f *walkFixture) map[string][]badCall {
	const noSuch = 1 << 20 // no machine has this many GPUs
	return map[string][]badCall{
		"OnDevice": {
			{"device -2", inv, func() error { return ignoreValue(cubridge.NewDevice[float32](4, cubridge.OnDevice(-2))) }},
			{"no such device", inv, func() error { return ignoreValue(cubridge.NewDevice[float32](4, cubridge.OnDevice(noSuch))) }},
		},
		"OnStream": {
			{"closed stream", inv, func() error { return ignoreValue(cubridge.NewDevice[float32](4, cubridge.OnStream(f.closedStream))) }},
		},
		"Buffer.Device": nil, // a getter, nil-safe
		"NewStreamOn": {
			{"device -5", inv, func() error { return ignoreValue(cubridge.NewStreamOn(-5)) }},
			{"no such device", inv, func() error { return ignoreValue(cubridge.NewStreamOn(noSuch)) }},
		},
		"DefaultStreamOn": {
			{"device -5", inv, func() error { return ignoreValue(cubridge.DefaultStreamOn(-5)) }},
			{"no such device", inv, func() error { return ignoreValue(cubridge.DefaultStreamOn(noSuch)) }},
		},
		"Stream.Device": {
			{"closed", inv, func() error { return ignoreValue(f.closedStream.Device()) }},
		},
		"ReadMemoryStats": {
			{"no such device", inv, func() error { return ignoreValue(cubridge.ReadMemoryStats(noSuch)) }},
		},
		"EmptyCache": {
			{"no such device", inv, func() error { return cubridge.EmptyCache(noSuch) }},
		},
		"MemInfoOn": {
			{"no such device", inv, func() error { _, _, err := cubridge.MemInfoOn(noSuch); return err }},
		},
	}
}

// ignoreValue keeps the error of a (value, error) result.
func ignoreValue(_ any, err error) error { return err }

func deviceCount(t *testing.T) int {
	t.Helper()
	devs, err := cubridge.Devices()
	require.NoError(t, err)
	return len(devs)
}

// streamNaming returns the stream newStream makes, closed when t ends, after
// checking that it names device d.
func streamNaming(t *testing.T, d int, newStream func() (*cubridge.Stream, error)) *cubridge.Stream {
	t.Helper()
	s, err := newStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	got, err := s.Device()
	require.NoError(t, err)
	assert.Equal(t, d, got)
	return s
}

func TestBufferDevice(t *testing.T) {
	b, err := cubridge.NewDevice[float32](16)
	require.NoError(t, err)
	defer b.Free()
	assert.Equal(t, 0, b.Device())
	var nilBuf *cubridge.Buffer[float32]
	assert.Equal(t, 0, nilBuf.Device())
	s := streamNaming(t, 0, func() (*cubridge.Stream, error) { return cubridge.NewStreamOn(0) })
	on, err := cubridge.NewDevice[float32](16, cubridge.OnStream(s))
	require.NoError(t, err)
	assert.Equal(t, 0, on.Device())
	require.NoError(t, cubridge.FillBuffer(on, 2, s))
	require.NoError(t, cubridge.AddBuffer(on, on, on, s))
	require.NoError(t, s.Synchronize())
	got := make([]float32, 16)
	require.NoError(t, on.CopyTo(got))
	assert.Equal(t, float32(4), got[15])
	require.NoError(t, on.Free())
	// Device 0's default stream, named: where a nil Stream's work runs.
	ds := streamNaming(t, 0, func() (*cubridge.Stream, error) { return cubridge.DefaultStreamOn(0) })
	handle, err := ds.Handle()
	require.NoError(t, err)
	assert.Zero(t, handle, "the default stream's handle")
	require.NoError(t, cubridge.FillBuffer(b, 5, ds))
	require.NoError(t, ds.Synchronize())
	got = make([]float32, 16)
	require.NoError(t, b.CopyTo(got))
	assert.Equal(t, float32(5), got[0])
	require.NoError(t, ds.Close())
	// A buffer whose stream closed first is freed on the default stream.
	s2, err := cubridge.NewStreamOn(0)
	require.NoError(t, err)
	late, err := cubridge.NewDevice[float32](16, cubridge.OnStream(s2))
	require.NoError(t, err)
	require.NoError(t, s2.Close())
	require.NoError(t, late.Free())
	stillWorks(t)
}

// TestCPUBackendHasOneDevice: device 1 is refused with a message naming it.
func TestCPUBackendHasOneDevice(t *testing.T) {
	if b, err := cubridge.Backend(); err != nil || b != cubridge.BackendCPU {
		t.Skip("CUDA backend")
	}
	_, err := cubridge.NewDevice[float32](4, cubridge.OnDevice(1))
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "1")
	_, err = cubridge.NewStreamOn(1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	stillWorks(t)
}

func TestMemoryStats(t *testing.T) {
	before, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	const n = 1 << 18
	b, err := cubridge.NewDevice[float32](n)
	require.NoError(t, err)
	during, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, during.InUseBytes, before.InUseBytes+4*n)
	assert.GreaterOrEqual(t, during.ReservedBytes, during.InUseBytes)
	assert.GreaterOrEqual(t, during.PeakInUseBytes, during.InUseBytes)
	assert.Greater(t, during.AllocCount, before.AllocCount)
	require.NoError(t, b.Free())
	require.NoError(t, cubridge.Synchronize())
	after, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	assert.Greater(t, after.FreeCount, before.FreeCount)
	assert.Less(t, after.InUseBytes, during.InUseBytes)
	// The freed block is kept for reuse (the allocation, a miss, gave back what
	// the stream had cached before).
	assert.GreaterOrEqual(t, after.CachedBytes, uint64(4*n))
	assert.GreaterOrEqual(t, after.ReservedBytes, after.InUseBytes+after.CachedBytes)
	require.NoError(t, cubridge.EmptyCache(0))
	require.NoError(t, cubridge.EmptyCache(-1))
	emptied, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	assert.Zero(t, emptied.CachedBytes, "EmptyCache gives cached blocks back")
	free, total, err := cubridge.MemInfoOn(0)
	require.NoError(t, err)
	assert.LessOrEqual(t, free, total)
	stillWorks(t)
}

// TestMixedDevices (two GPUs): buffers and streams of different devices in one
// call are refused naming both devices; each device computes right.
func TestMixedDevices(t *testing.T) {
	if b, err := cubridge.Backend(); err != nil || b != cubridge.BackendCUDA || deviceCount(t) < 2 {
		t.Skip("needs 2 GPUs")
	}
	b0, err := cubridge.NewDevice[float32](1000, cubridge.OnDevice(0))
	require.NoError(t, err)
	defer b0.Free()
	b1, err := cubridge.NewDevice[float32](1000, cubridge.OnDevice(1))
	require.NoError(t, err)
	defer b1.Free()
	assert.Equal(t, 1, b1.Device())
	err = cubridge.AddBuffer(b0, b0, b1, nil)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "device 0")
	assert.Contains(t, err.Error(), "device 1")
	s1, err := cubridge.NewStreamOn(1)
	require.NoError(t, err)
	defer s1.Close()
	err = cubridge.AddBuffer(b0, b0, b0, s1)
	require.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	// Device 1's default stream, named while device 0 is current: it takes
	// device 1's buffers and refuses device 0's.
	ds1 := streamNaming(t, 1, func() (*cubridge.Stream, error) { return cubridge.DefaultStreamOn(1) })
	require.ErrorIs(t, cubridge.FillBuffer(b0, 1, ds1), cubridge.ErrInvalidArgument)
	require.NoError(t, cubridge.FillBuffer(b1, 1, ds1))
	require.NoError(t, ds1.Synchronize())
	// Each device on its own.
	require.NoError(t, cubridge.FillBuffer(b1, 3, s1))
	require.NoError(t, cubridge.AddBuffer(b1, b1, b1, s1))
	sum, err := cubridge.SumBuffer(b1, s1)
	require.NoError(t, err)
	assert.Equal(t, 6000.0, sum)
	stats, err := cubridge.ReadMemoryStats(1)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, stats.InUseBytes, uint64(4000))
	stillWorks(t)
}

// TestEventMovedBetweenDevicesWhileWaitedFor (two GPUs): recording an Event on
// a stream of another device replaces its CUDA event; goroutines waiting on it
// meanwhile keep a good one (each device's event lives as long as the Event).
func TestEventMovedBetweenDevicesWhileWaitedFor(t *testing.T) {
	if b, err := cubridge.Backend(); err != nil || b != cubridge.BackendCUDA || deviceCount(t) < 2 {
		t.Skip("needs 2 GPUs")
	}
	var streams [2]*cubridge.Stream
	for d := range streams {
		s, err := cubridge.NewStreamOn(d)
		require.NoError(t, err)
		defer s.Close()
		streams[d] = s
	}
	e, err := cubridge.NewEvent()
	require.NoError(t, err)
	defer e.Close()
	stop := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := e.Synchronize(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 2000 {
		require.NoError(t, e.Record(streams[i%2]))
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	stillWorks(t)
}
