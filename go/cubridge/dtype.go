package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"reflect"
)

// Number is the set of element types the Go API takes: the library's
// float32, float64, int32 and int64 dtypes (and types defined on them).
type Number interface {
	~float32 | ~float64 | ~int32 | ~int64
}

// Float is the floating-point subset of Number.
type Float interface {
	~float32 | ~float64
}

// Integer is the integer subset of Number.
type Integer interface {
	~int32 | ~int64
}

// DType is an element type of the C library, numbered as in its one dtype
// table. Float16 and BFloat16 exist in the library but have no Go type here.
type DType int

// The library's dtypes.
const (
	Float32  DType = C.CUBRIDGE_FLOAT32
	Float64  DType = C.CUBRIDGE_FLOAT64
	Int32    DType = C.CUBRIDGE_INT32
	Int64    DType = C.CUBRIDGE_INT64
	Float16  DType = C.CUBRIDGE_FLOAT16
	BFloat16 DType = C.CUBRIDGE_BFLOAT16
)

// String returns the library's name of d ("float32", ...), or "dtype(N)" if
// the library does not know d.
func (d DType) String() string {
	return libraryName(C.cubridge_dtype_name(C.int(d)), "dtype", int(d))
}

// DTypes returns every dtype the C library defines, read from its table
// (dtypes are numbered from 0; the library names each one); the constants
// above name them.
func DTypes() []DType {
	var out []DType
	for d := DType(0); C.cubridge_dtype_name(C.int(d)) != nil; d++ {
		out = append(out, d)
	}
	return out
}

// Size returns the size of one element of d in bytes (0 if unknown).
func (d DType) Size() int { return int(C.cubridge_dtype_size(C.int(d))) }

// DTypeOf returns the library dtype of the Go type T.
func DTypeOf[T Number]() DType {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Int32:
		return Int32
	default: // reflect.Int64: the only kind left in Number
		return Int64
	}
}
