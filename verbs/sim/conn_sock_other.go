//go:build !unix

package sim

import (
	"errors"
	"net"
	"syscall"
)

// rawSocket is nil off Unix: the connection reads and writes as a
// net.Conn does, and the reader guesses a burst's end from what bufio
// holds (conn_read.go).
func rawSocket(net.Conn) syscall.RawConn { return nil }

var errNoRawSocket = errors.New("sim: no raw socket access on this system")

func readNoEINTR(uintptr, []byte) (int, error)  { return 0, errNoRawSocket }
func writeNoEINTR(uintptr, []byte) (int, error) { return 0, errNoRawSocket }
