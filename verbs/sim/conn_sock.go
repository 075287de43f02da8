package sim

// The socket under a connection, reached without blocking where that
// saves a wake-up. A syscall costs about 1 µs here and waking a process
// that sleeps on its socket about 10 µs (a pipe ping-pong between two
// processes: 21 µs a round trip; PVM guest, 2026-12-07), so the data
// path is counted in wake-ups: the reader learns that it is about to
// wait for the peer from the read that finds nothing (sockReader), and
// it is then that it sends what its burst queued, itself (flushInline)
// rather than waking the writer goroutine for it.

import (
	"bufio"
	"errors"
	"io"
	"net"
	"syscall"
)

// sockReader is what a connection's bufio.Reader reads from. On a
// socket each read is first tried without waiting; when nothing is
// there, beforeWait runs and the read then waits as a net.Conn read
// does (deadlines included). On anything else (net.Pipe in tests) it is
// the net.Conn itself, and the reader falls back to guessing from what
// bufio holds (frameReady).
type sockReader struct {
	nc  net.Conn
	raw syscall.RawConn // nil when nc is not a socket
	// beforeWait, set by the connection's reader goroutine, runs in it
	// when a read is about to wait for the peer.
	beforeWait func()
}

// connIn is a connection's reading end: bufio over its sockReader.
type connIn struct {
	br   *bufio.Reader
	sock *sockReader
}

func newConnIn(nc net.Conn) connIn {
	s := &sockReader{nc: nc, raw: rawSocket(nc)}
	return connIn{br: bufio.NewReaderSize(s, connReadBuffer), sock: s}
}

// Read is io.Reader.
func (s *sockReader) Read(p []byte) (int, error) {
	if s.raw == nil || len(p) == 0 {
		return s.nc.Read(p)
	}
	n, err := s.tryRead(p)
	if !errors.Is(err, syscall.EAGAIN) {
		return n, err
	}
	if s.beforeWait != nil {
		s.beforeWait()
	}
	return s.nc.Read(p)
}

// tryRead reads what is there now: syscall.EAGAIN when nothing is.
func (s *sockReader) tryRead(p []byte) (int, error) {
	return s.attempt(func() []byte { return p }, func() {}, false)
}

// readUnder is Read into memory that has an owner to lock (an MR):
// pick locks it and returns where this read's bytes go, done unlocks
// it. The owner is locked only while bytes move, never while the peer
// is awaited.
func (s *sockReader) readUnder(pick func() []byte, done func()) (int, error) {
	n, err := s.attempt(pick, done, false)
	if !errors.Is(err, syscall.EAGAIN) {
		return n, err
	}
	if s.beforeWait != nil {
		s.beforeWait()
	}
	return s.attempt(pick, done, true)
}

// attempt reads once, or with wait until something came.
func (s *sockReader) attempt(pick func() []byte, done func(), wait bool) (int, error) {
	var n int
	var rerr error
	err := s.raw.Read(func(fd uintptr) bool {
		n, rerr = readNoEINTR(fd, pick())
		done()
		return !wait || !errors.Is(rerr, syscall.EAGAIN)
	})
	if err != nil {
		return 0, err
	}
	return sysResult(n, rerr)
}

// sysResult is a read(2)'s result as io.Reader gives it.
func sysResult(n int, err error) (int, error) {
	switch {
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// tryWrite writes what of b the socket takes now, without waiting.
func tryWrite(raw syscall.RawConn, b []byte) (n int, err error) {
	var werr error
	cerr := raw.Write(func(fd uintptr) bool {
		n, werr = writeNoEINTR(fd, b)
		return true
	})
	if cerr != nil {
		return 0, cerr
	}
	if n < 0 {
		n = 0
	}
	return n, werr
}
