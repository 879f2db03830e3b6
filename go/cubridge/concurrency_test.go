package cubridge_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// TestConcurrency runs many goroutines at once through slices, shared and
// private buffers, streams and failing calls. Run it with -race.
func TestConcurrency(t *testing.T) {
	const goroutines = 48
	const rounds = 40
	shared := newDeviceFrom(t, sample[float64](4096, 1))
	sharedWant := sample[float64](4096, 1)
	wantSum, _ := refSum(sharedWant, nil)

	var wg sync.WaitGroup
	errc := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errc <- worker(g, rounds, shared, wantSum)
		}(g)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		assert.NoError(t, err)
	}
}

func worker(g, rounds int, shared *cubridge.Buffer[float64], wantSum float64) error {
	s, err := cubridge.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	n := 1000 + g
	a, b := sample[float32](n, g), sample[float32](n, g+1)
	want := refBinary("add", a, b, 0)
	dst := make([]float32, n)
	buf, err := cubridge.NewDevice[float32](n)
	if err != nil {
		return err
	}
	defer buf.Free()
	for r := 0; r < rounds; r++ {
		switch (g + r) % 4 {
		case 0: // slices
			if err := cubridge.Add(dst, a, b); err != nil {
				return err
			}
			for i := range want {
				if dst[i] != want[i] {
					return fmt.Errorf("goroutine %d: add[%d] = %v, want %v", g, i, dst[i], want[i])
				}
			}
		case 1: // a private buffer on a private stream
			if err := buf.CopyFrom(a); err != nil {
				return err
			}
			if err := cubridge.ScaleBuffer(2, buf, s); err != nil {
				return err
			}
			if err := s.Synchronize(); err != nil {
				return err
			}
			if err := buf.CopyTo(dst); err != nil {
				return err
			}
			for i := range a {
				if dst[i] != 2*a[i] {
					return fmt.Errorf("goroutine %d: scale[%d] = %v, want %v", g, i, dst[i], 2*a[i])
				}
			}
		case 2: // a buffer shared by every goroutine, read only
			sum, err := cubridge.SumBuffer(shared, s)
			if err != nil {
				return err
			}
			if sum != wantSum {
				return fmt.Errorf("goroutine %d: sum = %v, want %v", g, sum, wantSum)
			}
		case 3: // failures: each goroutine must see its own message
			_, err := cubridge.Min(a[:0])
			var e *cubridge.Error
			if !errors.As(err, &e) || e.Op != "min" || e.Msg == "" || !errors.Is(err, cubridge.ErrInvalidArgument) {
				return fmt.Errorf("goroutine %d: min of nothing: %#v", g, err)
			}
			_, err = cubridge.MaxBuffer((*cubridge.Buffer[int32])(nil), s)
			if !errors.Is(err, cubridge.ErrInvalidArgument) {
				return fmt.Errorf("goroutine %d: max of nil: %v", g, err)
			}
		}
	}
	return nil
}

// TestConcurrentFree frees buffers and closes streams while other goroutines
// use them: every call either works or reports ErrInvalidArgument.
func TestConcurrentFree(t *testing.T) {
	for round := 0; round < 20; round++ {
		b, err := cubridge.NewDevice[int32](1 << 12)
		require.NoError(t, err)
		s, err := cubridge.NewStream()
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				src := make([]int32, 1<<12)
				for i := 0; i < 20; i++ {
					var err error
					switch (g + i) % 3 {
					case 0:
						err = cubridge.AddBuffer(b, b, b, s)
					case 1:
						err = b.CopyFrom(src)
					case 2:
						_, err = cubridge.SumIntBuffer(b, nil)
					}
					if err != nil && !errors.Is(err, cubridge.ErrInvalidArgument) {
						errs <- err
						return
					}
				}
			}(g)
		}
		wg.Add(2)
		go func() { defer wg.Done(); errs <- b.Free() }()
		go func() { defer wg.Done(); errs <- s.Close() }()
		wg.Wait()
		close(errs)
		for err := range errs {
			assert.NoError(t, err)
		}
	}
}
