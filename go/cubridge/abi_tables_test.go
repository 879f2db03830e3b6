package cubridge_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

// TestABITables compares the Go names with the C ABI's own tables: every
// status the library defines has a Go constant, a name and (failures) exactly
// one sentinel; every dtype has a Go constant with the library's name.
func TestABITables(t *testing.T) {
	statuses := []cubridge.Status{
		cubridge.StatusOK, cubridge.StatusInvalidArgument, cubridge.StatusUnsupportedDType,
		cubridge.StatusOutOfMemory, cubridge.StatusNoDevice, cubridge.StatusDriver,
		cubridge.StatusLaunchFailed, cubridge.StatusCUDA, cubridge.StatusCUDASticky,
		cubridge.StatusInternal,
	}
	require.Equal(t, statuses, cubridge.Statuses(), "one Go constant per ABI status, in order")
	seen := map[error]cubridge.Status{}
	for _, s := range cubridge.Statuses() {
		assert.NotEqual(t, "UNKNOWN", s.String(), "status %d has a name", int(s))
		if s == cubridge.StatusOK {
			assert.Nil(t, s.Sentinel())
			continue
		}
		sentinel := s.Sentinel()
		require.NotNil(t, sentinel, "status %v has a sentinel", s)
		if prev, dup := seen[sentinel]; dup {
			t.Errorf("statuses %v and %v share a sentinel", prev, s)
		}
		seen[sentinel] = s
		assert.True(t, errors.Is(&cubridge.Error{Status: s}, sentinel))
	}
	n := len(cubridge.Statuses())
	assert.Equal(t, "UNKNOWN", cubridge.Status(n).String(), "nothing past the table")
	assert.Nil(t, cubridge.Status(n).Sentinel())

	dtypes := []cubridge.DType{cubridge.Float32, cubridge.Float64, cubridge.Int32, cubridge.Int64,
		cubridge.Float16, cubridge.BFloat16}
	names := []string{"float32", "float64", "int32", "int64", "float16", "bfloat16"}
	require.Equal(t, dtypes, cubridge.DTypes(), "one Go constant per ABI dtype, in order")
	for i, d := range cubridge.DTypes() {
		assert.Equal(t, names[i], d.String())
		assert.Positive(t, d.Size())
	}
	assert.Equal(t, "dtype(6)", cubridge.DType(len(dtypes)).String())

	// The deprecated spellings are the same values.
	assert.Equal(t, cubridge.StatusUnsupportedDType, cubridge.StatusUnsupportedDtype)
	assert.Same(t, cubridge.ErrUnsupportedDType, cubridge.ErrUnsupportedDtype) //nolint:staticcheck // on purpose
}
