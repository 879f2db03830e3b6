package cubridge_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

func onCUDA(t *testing.T) bool {
	b, err := cubridge.Backend()
	require.NoError(t, err)
	return b == cubridge.BackendCUDA
}

// graphStream skips the test without CUDA, else returns a stream closed when
// the test ends.
func graphStream(t *testing.T) *cubridge.Stream {
	t.Helper()
	if !onCUDA(t) {
		t.Skip("graphs need the CUDA backend (run on the GPU host)")
	}
	return openForTest(t, cubridge.NewStream)
}

func TestGraphArguments(t *testing.T) {
	var nilStream *cubridge.Stream
	_, err := nilStream.Capture(func() error { return nil })
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "default stream cannot be recorded")

	s, err := cubridge.NewStream()
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Capture(nil)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)

	var g *cubridge.Graph
	assert.ErrorIs(t, g.Launch(s), cubridge.ErrInvalidArgument, "a nil graph")
	require.NoError(t, g.Close())

	if !onCUDA(t) {
		_, err = s.Capture(func() error { return nil })
		assert.ErrorIs(t, err, cubridge.ErrNoDevice)
		assert.ErrorContains(t, err, "graphs need the CUDA backend")
	}
}

// TestGraphReplays records three adds and replays them: each launch adds 3.
func TestGraphReplays(t *testing.T) {
	s := graphStream(t)
	a := newDeviceFrom(t, []float32{1, 2, 3, 4})
	defer a.Free()
	one := newDeviceFrom(t, []float32{1, 1, 1, 1})
	defer one.Free()
	g, err := s.Capture(func() error {
		for i := 0; i < 3; i++ {
			if err := cubridge.AddBuffer(a, a, one, s); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	got := make([]float32, 4)
	require.NoError(t, a.CopyTo(got))
	assert.Equal(t, []float32{1, 2, 3, 4}, got, "recording runs nothing")

	for i := 0; i < 4; i++ {
		require.NoError(t, g.Launch(s))
	}
	require.NoError(t, s.Synchronize())
	require.NoError(t, a.CopyTo(got))
	assert.Equal(t, []float32{13, 14, 15, 16}, got)

	require.NoError(t, g.Close())
	assert.ErrorIs(t, g.Launch(s), cubridge.ErrInvalidArgument, "a closed graph")
}

// TestGraphRefusesHostWork: a reduction returns to the host, so it cannot be
// recorded; the stream works normally afterwards.
func TestGraphRefusesHostWork(t *testing.T) {
	s := graphStream(t)
	a := newDeviceFrom(t, []float64{1, 2, 3})
	defer a.Free()
	_, err := s.Capture(func() error {
		_, err := cubridge.SumBuffer(a, s)
		return err
	})
	require.Error(t, err)
	require.NoError(t, cubridge.AddBuffer(a, a, a, s))
	sum, err := cubridge.SumBuffer(a, s)
	require.NoError(t, err)
	assert.Equal(t, 12.0, sum)
}

// TestGraphRefusesAllocation: memory allocated on a recording stream would
// belong to the graph's launches, so the allocation is refused by name and
// the recording of the ops around it still replays.
func TestGraphRefusesAllocation(t *testing.T) {
	s := graphStream(t)
	a := newDeviceFrom(t, []float64{1, 2, 3})
	defer a.Free()
	var allocErr error
	g, err := s.Capture(func() error {
		_, allocErr = cubridge.NewDevice[float64](3, cubridge.OnStream(s))
		return cubridge.AddBuffer(a, a, a, s)
	})
	require.NoError(t, err)
	defer g.Close()
	assert.ErrorIs(t, allocErr, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, allocErr, "recording a graph")
	require.NoError(t, g.Launch(s))
	sum, err := cubridge.SumBuffer(a, s)
	require.NoError(t, err)
	assert.Equal(t, 12.0, sum, "one launch of one recorded add")
}

// TestGraphCapturePanicEndsTheCapture: when record panics, the panic reaches
// the caller and the stream is no longer recording: its next add runs.
func TestGraphCapturePanicEndsTheCapture(t *testing.T) {
	s := graphStream(t)
	a := newDeviceFrom(t, []float32{1, 2})
	defer a.Free()
	assert.PanicsWithValue(t, "record failed", func() {
		_, _ = s.Capture(func() error {
			if err := cubridge.AddBuffer(a, a, a, s); err != nil {
				return err
			}
			panic("record failed")
		})
	})
	require.NoError(t, cubridge.AddBuffer(a, a, a, s))
	require.NoError(t, s.Synchronize())
	got := make([]float32, 2)
	require.NoError(t, a.CopyTo(got))
	assert.Equal(t, []float32{2, 4}, got, "the recorded add was dropped, the next one ran")
}

// TestGraphKeepsItsBuffers: a buffer only the graph still uses is not
// collected, so the memory it had is not handed to a new buffer that the
// replay would then read.
func TestGraphKeepsItsBuffers(t *testing.T) {
	s := graphStream(t)
	acc := newDeviceFrom(t, make([]float32, 1024))
	g := recordAddOfOnes(t, s, acc)
	defer g.Close()
	runtime.GC()
	runtime.GC() // cleanups run after the second cycle at the latest
	time.Sleep(10 * time.Millisecond)
	for i := 0; i < 8; i++ { // would reuse the block of a collected ones buffer
		other, err := cubridge.NewDevice[float32](1024)
		require.NoError(t, err)
		defer other.Free()
		require.NoError(t, cubridge.FillBuffer(other, 100, nil))
	}
	require.NoError(t, cubridge.Synchronize())
	require.NoError(t, g.Launch(s))
	sum, err := cubridge.SumBuffer(acc, s)
	require.NoError(t, err)
	assert.Equal(t, 1024.0, sum, "the replay added the recorded ones")
}

// recordAddOfOnes records acc += ones on s with a ones buffer that nothing
// but the graph refers to once it returns.
func recordAddOfOnes(t *testing.T, s *cubridge.Stream, acc *cubridge.Buffer[float32]) *cubridge.Graph {
	ones, err := cubridge.NewDevice[float32](acc.Len())
	require.NoError(t, err)
	require.NoError(t, cubridge.FillBuffer(ones, 1, nil))
	require.NoError(t, cubridge.Synchronize())
	g, err := s.Capture(func() error { return cubridge.AddBuffer(acc, acc, ones, s) })
	require.NoError(t, err)
	return g
}

// TestGraphRefusesFreeingWhatItUses: freeing a recorded buffer or closing a
// recorded event is refused by name until the graph is closed, and both
// still work meanwhile.
func TestGraphRefusesFreeingWhatItUses(t *testing.T) {
	s := graphStream(t)
	a, err := cubridge.NewDevice[float64](3)
	require.NoError(t, err)
	require.NoError(t, a.CopyFrom([]float64{1, 2, 3}))
	e := openForTest(t, cubridge.NewEvent)
	g, err := s.Capture(func() error {
		if err := cubridge.AddBuffer(a, a, a, s); err != nil {
			return err
		}
		return e.Record(s)
	})
	require.NoError(t, err)

	err = a.Free()
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "the buffer is recorded in 1 open Graph(s): Close them first")
	assert.ErrorContains(t, e.Close(), "the event is recorded in 1 open Graph(s)")
	require.NoError(t, g.Launch(s))
	sum, err := cubridge.SumBuffer(a, s)
	require.NoError(t, err)
	assert.Equal(t, 12.0, sum, "the buffer refused to Free is intact")

	require.NoError(t, g.Close())
	require.NoError(t, a.Free(), "a closed graph no longer keeps it")
	require.NoError(t, e.Close())
}

// TestGraphRefusesARecordingWhoseBufferWasFreed: a buffer freed before the
// recording ends would be replayed freed, so Capture fails.
func TestGraphRefusesARecordingWhoseBufferWasFreed(t *testing.T) {
	s := graphStream(t)
	other := openForTest(t, cubridge.NewStream) // a's free is queued there, outside the capture
	a, err := cubridge.NewDevice[float32](4, cubridge.OnStream(other))
	require.NoError(t, err)
	_, err = s.Capture(func() error {
		if err := cubridge.AddBuffer(a, a, a, s); err != nil {
			return err
		}
		done := make(chan error)
		go func() { done <- a.Free() }() // another goroutine, as a capture's calls could be
		return <-done
	})
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "a buffer the recording used was freed before the recording ended")
	b := newDeviceFrom(t, []float32{1, 2})
	require.NoError(t, cubridge.AddBuffer(b, b, b, s), "the stream runs normally again")
}

// TestGraphCaptureSurvivesFreesOnTheDefaultStream: a buffer freed or collected
// while a stream records would be freed on the default stream (or on the
// recording stream), which ends the recording with an error; its memory waits
// for the recording's end instead.
func TestGraphCaptureSurvivesFreesOnTheDefaultStream(t *testing.T) {
	s := graphStream(t)
	a := newDeviceFrom(t, []float32{1, 2})
	big, err := cubridge.NewDevice[float32](16 << 20) // 64 MiB: beyond the block cache
	require.NoError(t, err)
	onS, err := cubridge.NewDevice[float32](1024, cubridge.OnStream(s))
	require.NoError(t, err)
	func() { _, _ = cubridge.NewDevice[float32](16 << 20) }() // for the collector
	before, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	g, err := s.Capture(func() error {
		if err := cubridge.AddBuffer(a, a, a, s); err != nil {
			return err
		}
		if err := big.Free(); err != nil {
			return err
		}
		if err := onS.Free(); err != nil {
			return err
		}
		runtime.GC()
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		return nil
	})
	require.NoError(t, err, "the frees did not end the recording")
	defer g.Close()
	after, err := cubridge.ReadMemoryStats(0)
	require.NoError(t, err)
	assert.LessOrEqual(t, after.InUseBytes+64<<20+4096, before.InUseBytes, "freed once the recording ended")
	require.NoError(t, g.Launch(s))
	sum, err := cubridge.SumBuffer(a, s)
	require.NoError(t, err)
	assert.Equal(t, 6.0, sum, "one replay of a += a")
}
