package sim

// A run's payload read from the connection straight into the MR it is
// for: one copy, by the kernel, for the bytes bufio has not taken yet,
// instead of one into the connection's buffer and one into the MR
// (a 64 KiB WRITE's second copy was 8.6% of the server's CPU: pprof
// of BenchmarkWriteTwoProcesses/64KiB, 2026-12-07).

// readIntoMR reads the stream's next k bytes into m at off: first what
// bufio holds, then from the socket itself. m is locked only while bytes
// move (sockReader.readIntoMR); a deregistered MR's bytes are read and
// dropped.
func (c *conn) readIntoMR(m *mr, off, k int) error {
	for k > 0 {
		if c.br.Buffered() == 0 && c.sock != nil && c.sock.raw != nil {
			got, err := c.sock.readIntoMR(m, off, c.payloadBuf(k))
			if err != nil {
				return noEOF(err)
			}
			off, k = off+got, k-got
			continue
		}
		if _, err := c.br.Peek(1); err != nil { // waits for the peer, as bufio does
			return noEOF(err)
		}
		j := min(k, c.br.Buffered())
		p, _ := c.br.Peek(j)
		m.mu.Lock()
		if !m.dead {
			copy(m.buf[off:off+j], p)
		}
		m.mu.Unlock()
		c.br.Discard(j)
		off, k = off+j, k-j
	}
	return nil
}

// payloadBuf is the connection's own buffer for n bytes of payload.
func (c *conn) payloadBuf(n int) []byte {
	if cap(c.runBuf) < n {
		c.runBuf = make([]byte, n)
	}
	return c.runBuf[:n]
}
