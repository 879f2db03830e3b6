package rdc

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExternDeviceAcrossLibraries(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	err := Apply(x)
	if errors.Is(err, ErrNoDevice) {
		t.Skip("no CUDA device: the rdc objects and the device link linked")
	}
	require.NoError(t, err)
	require.Equal(t, []float32{3, 5, 7, 9}, x)
}
