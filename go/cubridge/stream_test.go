package cubridge_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

func TestStreamLifecycle(t *testing.T) {
	s, err := cubridge.NewStream()
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	done, err := s.Query()
	require.NoError(t, err)
	assert.True(t, done, "nothing queued after Synchronize")
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "double Close is harmless")
	_, err = s.Query()
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "stream_query")

	err = s.Synchronize()
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "stream is already closed")
	b := newDeviceFrom(t, []float32{1})
	assert.ErrorIs(t, cubridge.AddBuffer(b, b, b, s), cubridge.ErrInvalidArgument)
	_, err = cubridge.SumBuffer(b, s)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)

	var nilStream *cubridge.Stream
	require.NoError(t, nilStream.Synchronize(), "nil is the default stream")
	done, err = nilStream.Query()
	require.NoError(t, err)
	assert.True(t, done, "the default stream after Synchronize")
	require.NoError(t, nilStream.Close())
	require.NoError(t, cubridge.Synchronize())
}

func TestEvents(t *testing.T) {
	s := openForTest(t, cubridge.NewStream)
	start, end := openForTest(t, cubridge.NewEvent), openForTest(t, cubridge.NewEvent)

	x, err := cubridge.NewDevice[float32](1 << 20)
	require.NoError(t, err)
	defer x.Free()
	require.NoError(t, start.Record(s))
	require.NoError(t, cubridge.FillBuffer(x, 1, s))
	require.NoError(t, end.Record(s))
	require.NoError(t, end.Synchronize())
	d, err := cubridge.Elapsed(start, end)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d.Nanoseconds(), int64(0))

	require.NoError(t, start.Record(nil), "default stream")
	require.NoError(t, start.Synchronize())

	var nilEvent *cubridge.Event
	_, err = cubridge.Elapsed(nilEvent, end)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, nilEvent.Record(s), cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, nilEvent.Synchronize(), cubridge.ErrInvalidArgument)
	assert.NoError(t, nilEvent.Close())

	require.NoError(t, end.Close())
	_, err = cubridge.Elapsed(start, end)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorIs(t, end.Record(s), cubridge.ErrInvalidArgument)
}

func TestStreamFromHandle(t *testing.T) {
	// Handle 0 is CUDA's legacy default stream, which every process has; on
	// the CPU backend the wrapper works the same way.
	s, err := cubridge.StreamFromHandle(0)
	require.NoError(t, err)
	require.NoError(t, s.Synchronize())
	x := newDeviceFrom(t, []int32{1, 2})
	require.NoError(t, cubridge.AddBuffer(x, x, x, s))
	require.NoError(t, s.Synchronize())
	got := make([]int32, 2)
	require.NoError(t, x.CopyTo(got))
	assert.Equal(t, []int32{2, 4}, got)
	require.NoError(t, s.Close(), "closes the wrapper, not the foreign stream")
}

// TestStreamHandleRoundTrips: Handle gives the cudaStream_t that
// StreamFromHandle wraps again; the default stream and the CPU backend say 0.
func TestStreamHandleRoundTrips(t *testing.T) {
	var nilStream *cubridge.Stream
	h, err := nilStream.Handle()
	require.NoError(t, err)
	assert.Zero(t, h, "the default stream")
	s := openForTest(t, cubridge.NewStream)
	h, err = s.Handle()
	require.NoError(t, err)
	b, err := cubridge.Backend()
	require.NoError(t, err)
	if b == cubridge.BackendCPU {
		assert.Zero(t, h, "the CPU backend has no CUDA streams")
		return
	}
	require.NotZero(t, h)
	w, err := cubridge.StreamFromHandle(h)
	require.NoError(t, err)
	defer w.Close()
	again, err := w.Handle()
	require.NoError(t, err)
	assert.Equal(t, h, again)
}

func TestElapsedNeedsRecordedEvents(t *testing.T) {
	a, b := openForTest(t, cubridge.NewEvent), openForTest(t, cubridge.NewEvent)
	_, err := cubridge.Elapsed(a, b)
	assert.ErrorIs(t, err, cubridge.ErrInvalidArgument)
	assert.ErrorContains(t, err, "never recorded")
}
