// Package kerneltest holds kernels declared for cubridge's bindings, written
// by hand as cubind generates them (toolchains/bind), for the tests of
// cubridge.Kernel. Their entry points call cubridge's own ops, so they run
// on either backend.
package kerneltest

// #include "kernels.h"
import "C"

import "unsafe"

// Saxpy is y = a*x + y: in x float32|float64 [n]; inout y like x [n];
// scalar a float. A negative a fails with the kernel's own message.
func Saxpy() unsafe.Pointer { return unsafe.Pointer(C.kt_saxpy()) }

// Truncate is q = int32(x): in x float32|float64 [m,n]; out q int32 [m,n].
func Truncate() unsafe.Pointer { return unsafe.Pointer(C.kt_truncate()) }

// Fill is u = value: scalar n int (sizes u); out u float64 [n]; scalar value float.
func Fill() unsafe.Pointer { return unsafe.Pointer(C.kt_fill()) }
