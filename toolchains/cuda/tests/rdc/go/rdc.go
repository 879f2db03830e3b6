// Package rdc calls rdc = True CUDA code (device-linked once) through cgo.
package rdc

// int rdc_apply(float* x, int n);  // apply.h
import "C"

import (
	"errors"
	"unsafe"
)

// ErrNoDevice: there is no CUDA device, nothing ran.
var ErrNoDevice = errors.New("no CUDA device")

// Apply sets x[i] = 2*x[i] + 1 with device code from two cuda_library targets.
func Apply(x []float32) error {
	if len(x) == 0 {
		return nil
	}
	switch C.rdc_apply((*C.float)(unsafe.Pointer(&x[0])), C.int(len(x))) {
	case 0: // RDC_OK
		return nil
	case 1: // RDC_NO_DEVICE
		return ErrNoDevice
	default:
		return errors.New("rdc_apply: CUDA error")
	}
}
