// Package gemmgo binds the gemm example's C ABI (../gemm.h: cuBLAS GEMM, cuRAND
// fill, rdc kernel) into Go through cgo.
package gemmgo

/*
#include <stddef.h>
#include <stdint.h>
// From ../gemm.h (declared here so that go vet needs no include path).
int gemm_device_count(void);
const char* gemm_status_string(int status);
int gemm_matmul_host_f32(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c);
int gemm_uniform_host(float* out, size_t n, uint64_t seed);
int gemm_affine_host(float* x, size_t n, float scale, float shift);
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrNoDevice reports that there is no CUDA device (nothing ran).
var ErrNoDevice = errors.New("gemmgo: no CUDA device")

// ErrShape reports slices whose lengths do not match the sizes given.
var ErrShape = errors.New("gemmgo: slice lengths do not match the sizes")

func check(status C.int) error {
	switch status {
	case 0:
		return nil
	case 1:
		return ErrNoDevice
	default:
		return fmt.Errorf("gemmgo: %s", C.GoString(C.gemm_status_string(status)))
	}
}

func ptr(s []float32) *C.float {
	if len(s) == 0 {
		return nil
	}
	return (*C.float)(unsafe.Pointer(&s[0]))
}

// DeviceCount is the number of CUDA devices.
func DeviceCount() int { return int(C.gemm_device_count()) }

// Matmul returns a @ b for row-major a (m x k) and b (k x n), by cuBLAS.
func Matmul(m, n, k int, a, b []float32) ([]float32, error) {
	if m < 0 || n < 0 || k < 0 || len(a) != m*k || len(b) != k*n {
		return nil, ErrShape
	}
	c := make([]float32, m*n)
	err := check(C.gemm_matmul_host_f32(C.int64_t(m), C.int64_t(n), C.int64_t(k), ptr(a), ptr(b), ptr(c)))
	return c, err
}

// Uniform returns n floats in (0, 1] from cuRAND's Philox generator.
func Uniform(n int, seed uint64) ([]float32, error) {
	if n < 0 {
		return nil, ErrShape
	}
	out := make([]float32, n)
	return out, check(C.gemm_uniform_host(ptr(out), C.size_t(n), C.uint64_t(seed)))
}

// Affine sets x[i] = scale*x[i] + shift with the rdc kernel.
func Affine(x []float32, scale, shift float32) error {
	return check(C.gemm_affine_host(ptr(x), C.size_t(len(x)), C.float(scale), C.float(shift)))
}
