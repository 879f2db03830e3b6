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

// The status codes of the C ABI.
const (
	StatusOK               Status = C.CUBRIDGE_OK
	StatusInvalidArgument  Status = C.CUBRIDGE_ERR_INVALID_ARGUMENT
	StatusUnsupportedDtype Status = C.CUBRIDGE_ERR_UNSUPPORTED_DTYPE
	StatusOutOfMemory      Status = C.CUBRIDGE_ERR_OUT_OF_MEMORY
	StatusNoDevice         Status = C.CUBRIDGE_ERR_NO_DEVICE
	StatusDriver           Status = C.CUBRIDGE_ERR_DRIVER
	StatusLaunchFailed     Status = C.CUBRIDGE_ERR_LAUNCH_FAILED
	StatusCUDA             Status = C.CUBRIDGE_ERR_CUDA
	StatusCUDASticky       Status = C.CUBRIDGE_ERR_CUDA_STICKY
	StatusInternal         Status = C.CUBRIDGE_ERR_INTERNAL
)

// String returns the library's stable upper-case name of s, e.g. "OUT_OF_MEMORY".
func (s Status) String() string {
	return C.GoString(C.cubridge_status_name(C.int(s)))
}

// Sentinel errors, one per failure status. Every error returned by this
// package for a failed library call matches exactly one of them with
// errors.Is; use errors.As with *Error to get the library's message.
var (
	ErrInvalidArgument  = errors.New("cubridge: invalid argument")
	ErrUnsupportedDtype = errors.New("cubridge: unsupported dtype")
	ErrOutOfMemory      = errors.New("cubridge: out of memory")
	ErrNoDevice         = errors.New("cubridge: no CUDA device")
	ErrDriver           = errors.New("cubridge: CUDA driver missing or too old")
	ErrLaunchFailed     = errors.New("cubridge: kernel launch failed")
	ErrCUDA             = errors.New("cubridge: CUDA error")
	ErrCUDASticky       = errors.New("cubridge: CUDA context unusable")
	ErrInternal         = errors.New("cubridge: internal error")
)

var sentinels = map[Status]error{
	StatusInvalidArgument:  ErrInvalidArgument,
	StatusUnsupportedDtype: ErrUnsupportedDtype,
	StatusOutOfMemory:      ErrOutOfMemory,
	StatusNoDevice:         ErrNoDevice,
	StatusDriver:           ErrDriver,
	StatusLaunchFailed:     ErrLaunchFailed,
	StatusCUDA:             ErrCUDA,
	StatusCUDASticky:       ErrCUDASticky,
	StatusInternal:         ErrInternal,
}

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
