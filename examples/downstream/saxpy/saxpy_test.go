package saxpy

import (
	"testing"

	"github.com/cubridge/cubridge/go/cubridge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSaxpy(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	y := []float32{10, 20, 30, 40}
	require.NoError(t, Saxpy(2, x, y))
	assert.Equal(t, []float32{12, 24, 36, 48}, y)
}

func TestSaxpyLarge(t *testing.T) {
	const n = 1 << 20
	x := make([]float32, n)
	y := make([]float32, n)
	for i := range x {
		x[i] = float32(i % 1000)
		y[i] = 1
	}
	require.NoError(t, Saxpy(0.5, x, y))
	for _, i := range []int{0, 1, 999, 1000, n - 1} {
		assert.Equal(t, 0.5*float32(i%1000)+1, y[i], "y[%d]", i)
	}
}

func TestSaxpyErrors(t *testing.T) {
	assert.ErrorIs(t, Saxpy(1, []float32{1}, []float32{1, 2}), ErrLength)
	assert.NoError(t, Saxpy(1, nil, nil))
}

func TestBackend(t *testing.T) {
	assert.Contains(t, []string{"cuda", "cpu"}, Backend())
}

// The kernel gives what cubridge's own axpy gives (cubridge's Go package,
// through its rules_go target @cubridge//go/cubridge).
func TestSaxpyMatchesCubridge(t *testing.T) {
	x := []float32{0.5, -1, 2, 1e3}
	mine := []float32{1, 2, 3, 4}
	theirs := append([]float32(nil), mine...)
	require.NoError(t, Saxpy(3, x, mine))
	require.NoError(t, cubridge.Axpy(float32(3), x, theirs))
	assert.Equal(t, theirs, mine)
}
