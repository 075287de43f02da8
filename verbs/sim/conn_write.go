package sim

// The connection's writer goroutine: it takes the write token, writes
// what the reader's last write left (carry) and then what is queued, in
// batches, and gives the token back.

import "time"

// writeLoop is the connection's writer: it takes what is queued in
// batches, encodes and writes them, and runs their sent callbacks.
func (c *conn) writeLoop() {
	var batch []outItem
	var out wireOut // grows with the largest batch (writeBatch writes writeChunk at most at once)
	for {
		var ok bool
		var f *wireFaults
		var carry []byte
		if batch, carry, f, ok = c.nextBatch(batch); !ok {
			return
		}
		if len(carry) > 0 {
			if _, err := c.nc.Write(carry); err != nil {
				c.fail(batch)
				return
			}
		}
		batch = mergeAcks(batch)
		var sent []outItem
		if sent, ok = c.writeBatch(batch, &out, f); !ok {
			return
		}
		c.doneWriting()
		runSent(sent)
	}
}

// nextBatch waits for the write token and something to write: what the
// reader's last write left (carry), then the queued items, swapped for
// spare, the last batch's storage; f is the connection's --wire faults
// (nil: none), read under the same lock. It reports false once the
// connection is closed; a closing connection whose queue is drained is
// shut down here.
func (c *conn) nextBatch(spare []outItem) (batch []outItem, carry []byte, f *wireFaults, ok bool) {
	c.mu.Lock()
	for (c.writing || len(c.q) == 0 && c.carry == nil && !c.closing) && !c.closed {
		c.cond.Wait()
	}
	if c.closed {
		c.mu.Unlock()
		return spare, nil, nil, false
	}
	if len(c.q) == 0 && c.carry == nil { // closing and drained
		c.closed = true
		c.mu.Unlock()
		c.shutdown()
		return spare, nil, nil, false
	}
	batch, carry, f = c.q, c.carry, c.faults
	c.q, c.carry = spare[:0], nil
	c.writing = true
	c.mu.Unlock()
	return batch, carry, f, true
}

// doneWriting gives the write token back, and wakes the writer for
// what came meanwhile.
func (c *conn) doneWriting() {
	c.mu.Lock()
	c.writing = false
	if len(c.q) > 0 || c.carry != nil || c.closing {
		c.cond.Signal()
	}
	c.mu.Unlock()
}

// writeBatch encodes batch into out and writes it, in chunks so a long
// queue does not build one huge buffer. It returns the items whose
// callbacks run now they are written, or false after a write error (the
// connection has failed).
func (c *conn) writeBatch(batch []outItem, out *wireOut, f *wireFaults) ([]outItem, bool) {
	c.batchAt = time.Now()
	var sent []outItem // their callbacks run once written
	for i := range batch {
		it := &batch[i]
		if it.sent != nil {
			sent = append(sent, outItem{sent: it.sent})
		}
		var err error
		switch {
		case it.run != nil && f == nil:
			err = c.encodeRun(out, it)
		case it.run != nil:
			err = c.encodeRunFaulted(out, it, f)
		case f == nil:
			out.buf = c.encodeItem(out.buf, it)
			err = out.flushFull(c.nc)
		default:
			out.buf = c.encodeFaulted(out.buf, it, f)
			err = out.flushFull(c.nc)
		}
		batch[i] = outItem{}
		if err != nil {
			out.reset()
			c.fail(append(sent, batch[i+1:]...))
			return nil, false
		}
	}
	if err := out.flush(c.nc); err != nil {
		c.fail(sent)
		return nil, false
	}
	return sent, true
}

// encodeItem appends one queued item to buf: raw bytes as they are, a
// packet as headers and payload (copied out of the MR now), traced and
// tapped as it goes out.
func (c *conn) encodeItem(buf []byte, it *outItem) []byte {
	if it.raw != nil {
		buf = append(buf, it.raw...)
		c.tap.raw(it.raw)
		return buf
	}
	pk := it.pkt
	var ack packet
	if pk == nil && it.ack.ok {
		ack = it.ack.packet()
		pk = &ack
	}
	if pk == nil {
		return buf // a reorder= release left over after the faults were cleared
	}
	buf = appendPacketHeader(buf, pk, pk.payloadLen())
	start := len(buf)
	if pk.Payload != nil {
		buf = append(buf, pk.Payload...)
	} else {
		buf = appendSegs(buf, pk.segs)
	}
	c.p.dev.trace(pk, true, it.srcQP, traceMark{again: it.again, qp: c.sender(it.srcQP), at: c.batchAt})
	c.tap.packet(pk, buf[start:], true)
	return buf
}

// fail closes the connection after a write error: unlike abort it leaves
// localClosed alone, so the reader reports the peer as lost.
// The items of the failed write are lost, as are those still queued.
func (c *conn) fail(lost []outItem) {
	c.mu.Lock()
	c.closed = true
	lost = append(lost, c.q...)
	c.q = nil
	c.mu.Unlock()
	c.nc.Close()
	runSent(lost)
}
