package verbs

import (
	"errors"
	"fmt"
	"syscall"
)

// Error is a failed verbs or rdma_cm call: the C function's name and the
// errno it set or returned. It unwraps to the syscall.Errno, so
// errors.Is(err, syscall.ENOMEM) works.
type Error struct {
	Func  string        // "ibv_reg_mr", "rdma_connect", ...
	Errno syscall.Errno // 0 when the call failed without setting errno
	// Detail is optional extra context ("qp state INIT", "rkey 0x1234").
	Detail string
}

func (e *Error) Error() string {
	msg := e.Func + ": "
	if e.Errno != 0 {
		msg += fmt.Sprintf("%s (errno %d %s)", e.Errno.Error(), int(e.Errno), ErrnoName(e.Errno))
	} else {
		msg += "failed"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *Error) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

// Errorf builds an *Error for C function fn.
func Errorf(fn string, errno syscall.Errno, format string, args ...any) *Error {
	return &Error{Func: fn, Errno: errno, Detail: fmt.Sprintf(format, args...)}
}

// FuncOf returns the C function name of the first *Error in err's chain.
func FuncOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Func
	}
	return ""
}

// ErrnoName is the symbolic name (EINVAL, ENOMEM, ...) of the errno values
// verbs calls return in practice.
func ErrnoName(e syscall.Errno) string {
	switch e {
	case syscall.EPERM:
		return "EPERM"
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.EINTR:
		return "EINTR"
	case syscall.EIO:
		return "EIO"
	case syscall.EAGAIN:
		return "EAGAIN"
	case syscall.ENOMEM:
		return "ENOMEM"
	case syscall.EACCES:
		return "EACCES"
	case syscall.EFAULT:
		return "EFAULT"
	case syscall.EBUSY:
		return "EBUSY"
	case syscall.EEXIST:
		return "EEXIST"
	case syscall.ENODEV:
		return "ENODEV"
	case syscall.EINVAL:
		return "EINVAL"
	case syscall.ENOSPC:
		return "ENOSPC"
	case syscall.EADDRINUSE:
		return "EADDRINUSE"
	case syscall.EADDRNOTAVAIL:
		return "EADDRNOTAVAIL"
	case syscall.ENETUNREACH:
		return "ENETUNREACH"
	case syscall.ECONNRESET:
		return "ECONNRESET"
	case syscall.ETIMEDOUT:
		return "ETIMEDOUT"
	case syscall.ECONNREFUSED:
		return "ECONNREFUSED"
	case syscall.EHOSTUNREACH:
		return "EHOSTUNREACH"
	case syscall.EOPNOTSUPP:
		return "EOPNOTSUPP"
	case syscall.ENOTCONN:
		return "ENOTCONN"
	}
	return fmt.Sprintf("errno %d", int(e))
}
