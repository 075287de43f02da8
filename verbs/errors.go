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
		msg += fmt.Sprintf("%s (errno %d", e.Errno.Error(), int(e.Errno))
		if name, ok := errnoNames[e.Errno]; ok {
			msg += " " + name
		}
		msg += ")"
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
	if name, ok := errnoNames[e]; ok {
		return name
	}
	return fmt.Sprintf("errno %d", int(e))
}

// errnoNames are the errnos an RDMA program meets, from its calls and from
// the process around them (EMFILE when descriptors run out: a table that
// lacked it printed "errno 24 errno 24").
var errnoNames = map[syscall.Errno]string{
	syscall.EPERM: "EPERM", syscall.ENOENT: "ENOENT", syscall.EINTR: "EINTR", syscall.EIO: "EIO",
	syscall.ENXIO: "ENXIO", syscall.EBADF: "EBADF", syscall.EAGAIN: "EAGAIN", syscall.ENOMEM: "ENOMEM",
	syscall.EACCES: "EACCES", syscall.EFAULT: "EFAULT", syscall.EBUSY: "EBUSY", syscall.EEXIST: "EEXIST",
	syscall.ENODEV: "ENODEV", syscall.EINVAL: "EINVAL", syscall.ENFILE: "ENFILE", syscall.EMFILE: "EMFILE",
	syscall.ENOSPC: "ENOSPC", syscall.EPIPE: "EPIPE", syscall.ERANGE: "ERANGE", syscall.ENOSYS: "ENOSYS",
	syscall.EPROTO: "EPROTO", syscall.EMSGSIZE: "EMSGSIZE", syscall.EPROTONOSUPPORT: "EPROTONOSUPPORT",
	syscall.EOPNOTSUPP: "EOPNOTSUPP", syscall.EAFNOSUPPORT: "EAFNOSUPPORT", syscall.EADDRINUSE: "EADDRINUSE",
	syscall.EADDRNOTAVAIL: "EADDRNOTAVAIL", syscall.ENETDOWN: "ENETDOWN", syscall.ENETUNREACH: "ENETUNREACH",
	syscall.ECONNABORTED: "ECONNABORTED", syscall.ECONNRESET: "ECONNRESET", syscall.ENOBUFS: "ENOBUFS",
	syscall.EISCONN: "EISCONN", syscall.ENOTCONN: "ENOTCONN", syscall.ETIMEDOUT: "ETIMEDOUT",
	syscall.ECONNREFUSED: "ECONNREFUSED", syscall.EHOSTUNREACH: "EHOSTUNREACH", syscall.EALREADY: "EALREADY",
	syscall.EINPROGRESS: "EINPROGRESS", syscall.ENODATA: "ENODATA",
}
