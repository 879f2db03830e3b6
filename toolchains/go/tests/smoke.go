// Package smoke tests cubridge's Go rules: cgo code linked against a cuda_library.
package smoke

// int smoke_device_count(void);
import "C"

// DeviceCount calls into the nvcc-compiled library through cgo.
func DeviceCount() int { return int(C.smoke_device_count()) }
