package cubridge

// #include <stdlib.h>
// #include "cubridge/cubridge.h"
import "C"

import (
	"fmt"
	"unsafe"
)

// Version returns the version of the linked C library as major, minor, patch.
func Version() (major, minor, patch int) {
	v := int(C.cubridge_version())
	return v / 10000, v / 100 % 100, v % 100
}

// CUDAVersion returns the major and minor version of the CUDA the library
// was built with (13.0, or 12.4 with --config=cuda12), or
// 0, 0 for a build without CUDA.
func CUDAVersion() (major, minor int) {
	v := int(C.cubridge_cuda_version())
	return v / 1000, v % 1000 / 10
}

// DriverVersion returns the major and minor CUDA version the installed
// driver supports, or 0, 0 without a driver. The CUDA backend needs it to be
// at least CUDAVersion's major.
func DriverVersion() (major, minor int) {
	v := int(C.cubridge_driver_version())
	return v / 1000, v % 1000 / 10
}

// BackendKind says where the library runs its kernels.
type BackendKind int

// The backends.
const (
	BackendCPU  BackendKind = C.CUBRIDGE_BACKEND_CPU
	BackendCUDA BackendKind = C.CUBRIDGE_BACKEND_CUDA
)

func (b BackendKind) String() string {
	switch b {
	case BackendCPU:
		return "cpu"
	case BackendCUDA:
		return "cuda"
	}
	return fmt.Sprintf("backend(%d)", int(b))
}

// Backend returns the backend in use. The library picks it once, at first
// use, from the environment variable CUBRIDGE_BACKEND: "cpu", "cuda" or
// "auto" (the default: CUDA when a device is visible, else the CPU).
func Backend() (BackendKind, error) {
	var b C.int
	err := check("get_backend", func() C.cubridge_status { return C.cubridge_get_backend(&b) })
	return BackendKind(b), err
}

// Device describes one visible CUDA device.
type Device struct {
	Index int
	Name  string
}

// Devices lists the visible CUDA devices; none on the CPU backend.
func Devices() ([]Device, error) {
	var count C.int
	if err := check("device_count", func() C.cubridge_status {
		return C.cubridge_device_count(&count)
	}); err != nil {
		return nil, err
	}
	devices := make([]Device, 0, int(count))
	const nameLen = 256
	buf := (*C.char)(C.malloc(nameLen))
	defer C.free(unsafe.Pointer(buf))
	for i := 0; i < int(count); i++ {
		if err := check("device_name", func() C.cubridge_status {
			return C.cubridge_device_name(C.int(i), buf, nameLen)
		}); err != nil {
			return nil, err
		}
		devices = append(devices, Device{Index: i, Name: C.GoString(buf)})
	}
	return devices, nil
}

// MemInfo returns the free and total memory of the current device, in
// bytes; on the CPU backend, of the host.
func MemInfo() (free, total uint64, err error) {
	var f, t C.size_t
	err = check("mem_info", func() C.cubridge_status { return C.cubridge_mem_info(&f, &t) })
	return uint64(f), uint64(t), err
}

// Synchronize waits for all work on the current device, on every stream.
func Synchronize() error {
	return check("device_synchronize", func() C.cubridge_status {
		return C.cubridge_device_synchronize()
	})
}
