package cubridge_test

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/cubridge/cubridge/go/cubridge"
)

var benchSizes = []int{1 << 10, 1 << 24}

// BenchmarkAddSlices measures Add on Go slices (the host path). Bytes are
// the two inputs read and the output written.
func BenchmarkAddSlices(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
			b.SetBytes(int64(3 * n * int(unsafe.Sizeof(float32(0)))))
			for b.Loop() {
				if err := cubridge.Add(out, x, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAddBuffers measures AddBuffer on device buffers, synchronizing
// after every add so the time is the kernel's, not the queue's.
func BenchmarkAddBuffers(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			bufs := make([]*cubridge.Buffer[float32], 3)
			for i := range bufs {
				var err error
				if bufs[i], err = cubridge.NewDevice[float32](n); err != nil {
					b.Fatal(err)
				}
				defer bufs[i].Free()
				if err := cubridge.FillBuffer(bufs[i], 1, nil); err != nil {
					b.Fatal(err)
				}
			}
			s, err := cubridge.NewStream()
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.SetBytes(int64(3 * n * int(unsafe.Sizeof(float32(0)))))
			for b.Loop() {
				if err := cubridge.AddBuffer(bufs[2], bufs[0], bufs[1], s); err != nil {
					b.Fatal(err)
				}
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSumSlices measures a float32 reduction on a Go slice.
func BenchmarkSumSlices(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := make([]float32, n)
			b.SetBytes(int64(n * int(unsafe.Sizeof(float32(0)))))
			for b.Loop() {
				if _, err := cubridge.Sum(x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
