//go:build unix

package sim

import (
	"errors"
	"net"
	"syscall"
)

// rawSocket is nc's socket for reads and writes that must not wait, or
// nil when nc is not one.
func rawSocket(nc net.Conn) syscall.RawConn {
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			return raw
		}
	}
	return nil
}

func readNoEINTR(fd uintptr, p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), p)
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

func writeNoEINTR(fd uintptr, p []byte) (int, error) {
	for {
		n, err := syscall.Write(int(fd), p)
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}
