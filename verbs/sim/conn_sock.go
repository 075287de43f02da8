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
	// The read in progress (the reader goroutine's, one at a time), in
	// fields rather than a closure per read, which would cost an
	// allocation each: into dst, or, when mr is set, into mr at mrOff
	// under its lock (dst then takes the bytes of a deregistered MR).
	dst    []byte
	mr     *mr
	mrOff  int
	wait   bool
	n      int
	err    error
	readFn func(fd uintptr) bool // s.readOnce, bound once
}

// connIn is a connection's reading end: bufio over its sockReader.
type connIn struct {
	br   *bufio.Reader
	sock *sockReader
}

func newConnIn(nc net.Conn) connIn {
	s := &sockReader{nc: nc, raw: rawSocket(nc)}
	s.readFn = s.readOnce
	return connIn{br: bufio.NewReaderSize(s, connReadBuffer), sock: s}
}

// Read is io.Reader.
func (s *sockReader) Read(p []byte) (int, error) {
	if s.raw == nil || len(p) == 0 {
		return s.nc.Read(p)
	}
	s.dst, s.mr = p, nil
	return s.read()
}

// readIntoMR is Read into m's bytes from off, len(scratch) of them at
// most: m is locked only while bytes move, never while the peer is
// awaited; a deregistered MR's bytes go to scratch.
func (s *sockReader) readIntoMR(m *mr, off int, scratch []byte) (int, error) {
	s.dst, s.mr, s.mrOff = scratch, m, off
	defer func() { s.mr = nil }()
	return s.read()
}

// read reads what is there now, and when nothing is, runs beforeWait
// and then waits for the peer.
func (s *sockReader) read() (int, error) {
	n, err := s.attempt(false)
	if !errors.Is(err, syscall.EAGAIN) {
		return n, err
	}
	if s.beforeWait != nil {
		s.beforeWait()
	}
	return s.attempt(true)
}

// attempt reads once, or with wait until something came.
func (s *sockReader) attempt(wait bool) (int, error) {
	s.wait = wait
	if err := s.raw.Read(s.readFn); err != nil { // closed, or past the read deadline
		return 0, err
	}
	return sysResult(s.n, s.err)
}

// readOnce is the read RawConn.Read runs, telling it whether to wait.
func (s *sockReader) readOnce(fd uintptr) bool {
	if m := s.mr; m != nil {
		m.mu.Lock()
		dst := s.dst
		if !m.dead {
			dst = m.buf[s.mrOff : s.mrOff+len(s.dst)]
		}
		s.n, s.err = readNoEINTR(fd, dst)
		m.mu.Unlock()
	} else {
		s.n, s.err = readNoEINTR(fd, s.dst)
	}
	return !s.wait || !errors.Is(s.err, syscall.EAGAIN)
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

// sockWriter writes to a socket without waiting (flushInline's writes),
// its state in fields for the same reason as sockReader's.
type sockWriter struct {
	raw     syscall.RawConn
	src     []byte
	n       int
	err     error
	writeFn func(fd uintptr) bool
}

func newSockWriter(raw syscall.RawConn) *sockWriter {
	w := &sockWriter{raw: raw}
	w.writeFn = w.writeOnce
	return w
}

// tryWrite writes what of b the socket takes now.
func (w *sockWriter) tryWrite(b []byte) (int, error) {
	w.src = b
	defer func() { w.src = nil }()
	if err := w.raw.Write(w.writeFn); err != nil {
		return 0, err
	}
	return max(w.n, 0), w.err
}

func (w *sockWriter) writeOnce(fd uintptr) bool {
	w.n, w.err = writeNoEINTR(fd, w.src)
	return true
}
