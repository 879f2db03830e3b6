package smoke

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeviceCountLinks(t *testing.T) {
	n := DeviceCount()
	require.GreaterOrEqual(t, n, 0)
	t.Logf("CUDA devices visible: %d", n)
}
