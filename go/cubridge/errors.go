package cubridge

// #include "cubridge/cubridge.h"
import "C"

import (
	"errors"
	"fmt"
	"runtime"
)

// Status is a status code of the C library. Every failure reported by this
// package carries one (see Error).
type Status int

// The status codes of the C ABI. Their names come from the library
// (Status.String); Statuses lists every status it defines.
const (
	StatusOK               Status = C.CUBRIDGE_OK
	StatusInvalidArgument  Status = C.CUBRIDGE_ERR_INVALID_ARGUMENT
	StatusUnsupportedDType Status = C.CUBRIDGE_ERR_UNSUPPORTED_DTYPE
	StatusOutOfMemory      Status = C.CUBRIDGE_ERR_OUT_OF_MEMORY
	StatusNoDevice         Status = C.CUBRIDGE_ERR_NO_DEVICE
	StatusDriver           Status = C.CUBRIDGE_ERR_DRIVER
	StatusLaunchFailed     Status = C.CUBRIDGE_ERR_LAUNCH_FAILED
	StatusCUDA             Status = C.CUBRIDGE_ERR_CUDA
	StatusCUDASticky       Status = C.CUBRIDGE_ERR_CUDA_STICKY
	StatusInternal         Status = C.CUBRIDGE_ERR_INTERNAL
)

// StatusUnsupportedDtype is StatusUnsupportedDType.
//
// Deprecated: use StatusUnsupportedDType (the package spells it DType everywhere).
const StatusUnsupportedDtype = StatusUnsupportedDType

// String returns the library's stable upper-case name of s, e.g. "OUT_OF_MEMORY".
func (s Status) String() string {
	return C.GoString(C.cubridge_status_name(C.int(s)))
}

// Statuses returns every status the C library defines, read from its table
// (statuses are numbered from 0; the library names each one).
func Statuses() []Status {
	var out []Status
	for s := Status(0); s.String() != "UNKNOWN"; s++ {
		out = append(out, s)
	}
	return out
}

// sentinels is the one table from failure status to sentinel error, filled
// by sentinel() as the Err* variables below are initialized.
var sentinels = map[Status]error{}

// sentinel makes the sentinel error of s and records it in the table.
func sentinel(s Status, text string) error {
	err := errors.New("cubridge: " + text)
	sentinels[s] = err
	return err
}

// Sentinel errors, one per failure status. Every error returned by this
// package for a failed library call matches exactly one of them with
// errors.Is; use errors.As with *Error to get the library's message.
var (
	ErrInvalidArgument  = sentinel(StatusInvalidArgument, "invalid argument")
	ErrUnsupportedDType = sentinel(StatusUnsupportedDType, "unsupported dtype")
	ErrOutOfMemory      = sentinel(StatusOutOfMemory, "out of memory")
	ErrNoDevice         = sentinel(StatusNoDevice, "no CUDA device")
	ErrDriver           = sentinel(StatusDriver, "CUDA driver missing or too old")
	ErrLaunchFailed     = sentinel(StatusLaunchFailed, "kernel launch failed")
	ErrCUDA             = sentinel(StatusCUDA, "CUDA error")
	ErrCUDASticky       = sentinel(StatusCUDASticky, "CUDA context unusable")
	ErrInternal         = sentinel(StatusInternal, "internal error")
)

// ErrUnsupportedDtype is ErrUnsupportedDType (the same error value).
//
// Deprecated: use ErrUnsupportedDType.
var ErrUnsupportedDtype = ErrUnsupportedDType

// Sentinel returns the sentinel error of a failure status (ErrOutOfMemory
// for StatusOutOfMemory, ...), or nil for StatusOK and unknown statuses.
func (s Status) Sentinel() error { return sentinels[s] }

// Error is a failed operation: the operation's name, the status and the
// message that explains it (from the C library, or from the argument checks
// this package does before calling it).
type Error struct {
	Op     string // "add", "malloc", ...
	Status Status
	Msg    string
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("cubridge: %s: %v", e.Op, e.Status)
	}
	return fmt.Sprintf("cubridge: %s: %v: %s", e.Op, e.Status, e.Msg)
}

// Unwrap returns the sentinel error of e.Status (ErrOutOfMemory, ...), or nil
// for a status this package does not know.
func (e *Error) Unwrap() error { return sentinels[e.Status] }

// invalid returns an ErrInvalidArgument error found on the Go side.
func invalid(op, format string, args ...any) error {
	return &Error{Op: op, Status: StatusInvalidArgument, Msg: fmt.Sprintf(format, args...)}
}

// check runs one C call and turns its status into an error. The C library
// keeps its message per OS thread, so the goroutine stays on its thread from
// the call until the message is read.
func check(op string, call func() C.cubridge_status) error {
	runtime.LockOSThread()
	st := call()
	var msg string
	if st != C.CUBRIDGE_OK {
		msg = C.GoString(C.cubridge_last_error())
	}
	runtime.UnlockOSThread()
	if st == C.CUBRIDGE_OK {
		return nil
	}
	return &Error{Op: op, Status: Status(st), Msg: msg}
}
