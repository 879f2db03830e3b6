// Package saxpy binds the downstream module's CUDA kernel into Go through cgo.
package saxpy

// #include "saxpy.h"
import "C"

import (
	"errors"
	"unsafe"
)

// ErrLength reports x and y of different lengths.
var ErrLength = errors.New("saxpy: x and y differ in length")

// ErrCUDA reports a failed CUDA call.
var ErrCUDA = errors.New("saxpy: CUDA call failed")

// Saxpy computes y = a*x + y in place.
func Saxpy(a float32, x, y []float32) error {
	if len(x) != len(y) {
		return ErrLength
	}
	if len(x) == 0 {
		return nil
	}
	rc := C.saxpy(C.float(a), (*C.float)(unsafe.Pointer(&x[0])), (*C.float)(unsafe.Pointer(&y[0])), C.size_t(len(x)))
	if rc != 0 {
		return ErrCUDA
	}
	return nil
}

// Backend is "cuda" or "cpu": where Saxpy runs on this machine.
func Backend() string { return C.GoString(C.saxpy_backend()) }
