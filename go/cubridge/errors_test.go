package cubridge_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cubridge/cubridge/go/cubridge"
)

func TestStatusSentinels(t *testing.T) {
	cases := []struct {
		status   cubridge.Status
		name     string
		sentinel error
	}{
		{cubridge.StatusInvalidArgument, "INVALID_ARGUMENT", cubridge.ErrInvalidArgument},
		{cubridge.StatusUnsupportedDType, "UNSUPPORTED_DTYPE", cubridge.ErrUnsupportedDType},
		{cubridge.StatusOutOfMemory, "OUT_OF_MEMORY", cubridge.ErrOutOfMemory},
		{cubridge.StatusNoDevice, "NO_DEVICE", cubridge.ErrNoDevice},
		{cubridge.StatusDriver, "DRIVER", cubridge.ErrDriver},
		{cubridge.StatusLaunchFailed, "LAUNCH_FAILED", cubridge.ErrLaunchFailed},
		{cubridge.StatusCUDA, "CUDA", cubridge.ErrCUDA},
		{cubridge.StatusCUDASticky, "CUDA_STICKY", cubridge.ErrCUDASticky},
		{cubridge.StatusInternal, "INTERNAL", cubridge.ErrInternal},
	}
	for _, c := range cases {
		assert.Equal(t, c.name, c.status.String())
		err := error(&cubridge.Error{Op: "add", Status: c.status, Msg: "why"})
		assert.ErrorIs(t, err, c.sentinel, c.name)
		assert.Equal(t, "cubridge: add: "+c.name+": why", err.Error())
		for _, other := range cases {
			if other.status != c.status {
				assert.False(t, errors.Is(err, other.sentinel), "%s is not %s", c.name, other.name)
			}
		}
	}
	assert.Equal(t, "OK", cubridge.StatusOK.String())
	assert.Equal(t, "UNKNOWN", cubridge.Status(99).String())
	assert.Nil(t, (&cubridge.Error{Status: 99}).Unwrap())
	assert.Equal(t, "cubridge: x: UNKNOWN", (&cubridge.Error{Op: "x", Status: 99}).Error())
}

func TestErrorCarriesCMessage(t *testing.T) {
	// Partial overlap of buffers is impossible, so take a message the C side
	// writes: min of an empty slice.
	_, err := cubridge.Min([]int32{})
	var e *cubridge.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "min", e.Op)
	assert.Equal(t, cubridge.StatusInvalidArgument, e.Status)
	assert.NotEmpty(t, e.Msg, "the C library's message")
}

func TestDTypes(t *testing.T) {
	assert.Equal(t, cubridge.Float32, cubridge.DTypeOf[float32]())
	assert.Equal(t, cubridge.Float64, cubridge.DTypeOf[float64]())
	assert.Equal(t, cubridge.Int32, cubridge.DTypeOf[int32]())
	assert.Equal(t, cubridge.Int64, cubridge.DTypeOf[int64]())
	type celsius float32
	assert.Equal(t, cubridge.Float32, cubridge.DTypeOf[celsius](), "defined types map by kind")
	for d, want := range map[cubridge.DType]struct {
		name string
		size int
	}{
		cubridge.Float32: {"float32", 4}, cubridge.Float64: {"float64", 8},
		cubridge.Int32: {"int32", 4}, cubridge.Int64: {"int64", 8},
		cubridge.Float16: {"float16", 2}, cubridge.BFloat16: {"bfloat16", 2},
	} {
		assert.Equal(t, want.name, d.String())
		assert.Equal(t, want.size, d.Size())
	}
	assert.Equal(t, "dtype(42)", cubridge.DType(42).String())
	assert.Equal(t, 0, cubridge.DType(42).Size())
}

func TestDefinedElementTypes(t *testing.T) {
	type meters float64
	a := []meters{1, 2}
	require.NoError(t, cubridge.Add(a, a, a))
	assert.Equal(t, []meters{2, 4}, a)
	s, err := cubridge.Sum(a)
	require.NoError(t, err)
	assert.Equal(t, 6.0, s)
}

func TestLibraryState(t *testing.T) {
	major, minor, patch := cubridge.Version()
	assert.Equal(t, []int{0, 2, 0}, []int{major, minor, patch})
	backend, err := cubridge.Backend()
	require.NoError(t, err)
	assert.Contains(t, []string{"cpu", "cuda"}, backend.String())
	free, total, err := cubridge.MemInfo() // host memory on the CPU backend
	require.NoError(t, err)
	assert.Greater(t, total, uint64(0))
	assert.LessOrEqual(t, free, total)
	devices, err := cubridge.Devices()
	require.NoError(t, err)
	if backend == cubridge.BackendCPU {
		assert.Empty(t, devices)
		return
	}
	require.NotEmpty(t, devices)
	for i, d := range devices {
		assert.Equal(t, i, d.Index)
		assert.NotEmpty(t, d.Name)
	}
}

// The CUDA version the build selected (the BUILD file passes it); empty: a
// local toolkit or a run outside Bazel, where only the invariants are checked.
var wantCUDA = flag.String("cuda_version", "", "MAJOR.MINOR of the CUDA the build selected")

func TestCUDAVersion(t *testing.T) {
	major, minor := cubridge.CUDAVersion()
	if *wantCUDA != "" {
		assert.Equal(t, *wantCUDA, fmt.Sprintf("%d.%d", major, minor))
	}
	assert.Contains(t, []int{0, 12, 13}, major)
	dmajor, dminor := cubridge.DriverVersion()
	assert.GreaterOrEqual(t, dmajor, 0)
	assert.GreaterOrEqual(t, dminor, 0)
	if major == 0 {
		assert.Equal(t, 0, dmajor, "a build without CUDA reports no driver")
	}
	if backend, err := cubridge.Backend(); err == nil && backend == cubridge.BackendCUDA {
		assert.GreaterOrEqual(t, dmajor, major, "the driver runs this CUDA major")
	}
}

// TestCUDABackendWithoutDevice asks for the CUDA backend where there is no
// GPU (in a child process: the backend is chosen once per process). Every
// op must fail with ErrDriver or ErrNoDevice, never panic.
func TestCUDABackendWithoutDevice(t *testing.T) {
	if os.Getenv("CUBRIDGE_TEST_CHILD") == "no-device" {
		backend, err := cubridge.Backend()
		require.NoError(t, err)
		require.Equal(t, cubridge.BackendCUDA, backend)
		noGPU := func(err error) {
			t.Helper()
			require.Error(t, err)
			assert.True(t, errors.Is(err, cubridge.ErrDriver) || errors.Is(err, cubridge.ErrNoDevice), "%v", err)
		}
		noGPU(cubridge.Add([]float32{1}, []float32{1}, []float32{1}))
		_, err = cubridge.Sum([]float64{1})
		noGPU(err)
		_, err = cubridge.NewDevice[int32](4)
		noGPU(err)
		_, _, err = cubridge.MemInfo()
		noGPU(err)
		return
	}
	devices, err := cubridge.Devices()
	require.NoError(t, err)
	if len(devices) > 0 {
		t.Skip("a GPU is present")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCUDABackendWithoutDevice$", "-test.v")
	if emulator := os.Getenv("CUBRIDGE_EMULATOR"); emulator != "" {
		// Under qemu-user (--config=aarch64) the kernel cannot run the test
		// binary itself: the emulator that runs this test runs the child too.
		exe, err := os.Executable()
		require.NoError(t, err)
		cmd = exec.Command(emulator, append([]string{exe}, cmd.Args[1:]...)...)
	}
	cmd.Env = append(os.Environ(), "CUBRIDGE_BACKEND=cuda", "CUBRIDGE_TEST_CHILD=no-device")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child test failed:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestCUDABackendWithoutDevice")
}
