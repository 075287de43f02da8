package sim

// What the writer sends in one go: bytes it encoded (headers, CM
// messages, packets it copied) and, for a message's payload, the MR's
// own bytes, written with one writev and copied once, by the kernel.
// A real NIC reads the payload by DMA when it sends, too: an
// application that changes the buffer before the completion gets
// whatever the NIC read.

import "net"

type wireOut struct {
	buf  []byte // encoded bytes; iov holds slices of it
	mark int    // buf[:mark] is in iov already
	iov  net.Buffers
	size int // bytes in iov
}

// seal adds what was encoded since the last seal as one piece.
func (o *wireOut) seal() {
	if len(o.buf) > o.mark {
		// Capacity capped: a later append reallocates rather than
		// writing past the piece. A reallocation leaves the pieces
		// already taken in the old array, which nothing writes again.
		o.iov = append(o.iov, o.buf[o.mark:len(o.buf):len(o.buf)])
		o.size += len(o.buf) - o.mark
		o.mark = len(o.buf)
	}
}

// ref adds b, written as it is then.
func (o *wireOut) ref(b []byte) {
	o.seal()
	o.iov = append(o.iov, b)
	o.size += len(b)
}

func (o *wireOut) pending() int { return o.size + len(o.buf) - o.mark }

// flush writes everything out and empties o for reuse.
func (o *wireOut) flush(nc net.Conn) error {
	o.seal()
	var err error
	if o.size > 0 {
		iov := o.iov // WriteTo consumes its receiver
		_, err = iov.WriteTo(nc)
	}
	o.reset()
	return err
}

// reset empties o without writing it (the connection has failed).
func (o *wireOut) reset() {
	clear(o.iov) // the MRs' bytes are not ours to keep alive
	o.iov, o.buf, o.mark, o.size = o.iov[:0], o.buf[:0], 0, 0
}

// flushFull writes o out once it holds a chunk.
func (o *wireOut) flushFull(nc net.Conn) error {
	if o.pending() < writeChunk {
		return nil
	}
	return o.flush(nc)
}
