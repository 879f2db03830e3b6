// Package cubridge runs the cubridge CUDA kernels from Go.
//
// The same compiled kernels serve Go, Python and C++. With a CUDA device
// they run on the GPU; without one (or with CUBRIDGE_BACKEND=cpu) the same
// kernel source runs on CPU threads. Backend reports which one is in use.
//
// # Slices
//
// The simplest calls take Go slices and return when the result is in them:
//
//	err := cubridge.Add(dst, a, b) // dst[i] = a[i] + b[i]
//
// Elementwise ops (Add, Sub, Mul, Div, Axpy, Scale, Fill, Convert) have
// Context variants that stop between chunks of a few million elements once
// their context is done. Reductions (Sum, Dot, Min, Max and the Int variants
// for integer types) return their value.
//
// # Buffers and streams
//
// A Buffer holds library memory: device (NewDevice), managed (NewManaged)
// or pinned host memory (NewPinned). Data moves in and out with CopyFrom,
// CopyTo and Copy. The buffer versions of the ops (AddBuffer, SumBuffer, ...)
// take a *Stream, nil for the default stream; on the GPU backend they are
// queued on it and run asynchronously, so synchronize (Stream.Synchronize,
// Synchronize) before reading results through other streams. Events time
// the work on a stream.
//
// Element types are float32, float64, int32 and int64 (the Number
// constraint), mapped to the library's dtypes by DTypeOf.
//
// # Errors
//
// Every failure is an *Error carrying the library's status and message. It
// matches one sentinel with errors.Is (ErrInvalidArgument, ErrOutOfMemory,
// ErrNoDevice, ...). Bad input (mismatched lengths, a nil or freed buffer,
// partially overlapping slices) is an error, never a panic.
//
// # Concurrency
//
// All functions are safe for concurrent use. Buffers, Streams and Events may
// be shared between goroutines; Free and Close wait for calls using them to
// return. The library's per-thread error message is read on the thread that
// made the call.
package cubridge
