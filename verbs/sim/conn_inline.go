package sim

// The end of the reader's burst: what the burst queued (ACKs, NAKs,
// READ responses, CM messages) goes out in one write, made by the reader
// itself when the socket takes it at once, instead of waking the writer
// goroutine for it (conn_sock.go says what a wake-up costs). Anything
// else, and whatever the socket does not take, is the writer's.

import (
	"errors"
	"syscall"
	"time"
)

// inlineLimit bounds what the reader writes itself: more (a large READ's
// responses) is the writer's, which writes without copying.
const inlineLimit = 64 << 10

// flushInline ends the reader's burst (conn_read.go endBurst).
func (c *conn) flushInline() {
	c.mu.Lock()
	c.batching = false
	c.burstAcked.Store(0)
	if len(c.q) == 0 {
		c.mu.Unlock()
		return
	}
	if c.writing || c.closing || c.closed || c.faults != nil || c.sock == nil || c.sock.raw == nil || !inlineable(c.q) {
		if !c.writing {
			c.cond.Signal()
		}
		c.mu.Unlock()
		return
	}
	batch := c.q
	c.q, c.spare = c.spare[:0], nil
	c.writing = true
	c.mu.Unlock()

	c.batchAt = time.Now()
	buf := c.inline[:0]
	for i, it := range mergeAcks(batch) {
		buf = c.encodeItem(buf, &it)
		batch[i] = outItem{}
	}
	clear(batch)
	if c.sockW == nil {
		c.sockW = newSockWriter(c.sock.raw)
	}
	n, err := c.sockW.tryWrite(buf)
	var carry []byte
	switch {
	case err == nil && n == len(buf):
	case err == nil || errors.Is(err, syscall.EAGAIN):
		carry = append([]byte(nil), buf[n:]...)
	default:
		c.inline = buf[:0]
		c.fail(nil) // the reader's next read sees the connection gone
		return
	}
	c.inline = buf[:0]
	c.mu.Lock()
	c.writing = false
	c.spare = batch[:0]
	c.carry = carry
	if len(c.q) > 0 || c.carry != nil || c.closing {
		c.cond.Signal()
	}
	c.mu.Unlock()
}

// inlineable says whether the reader may write q itself: packets and CM
// messages only (a run refers to an MR, and a sent callback or a held
// packet is the writer's business), inlineLimit bytes at most.
func inlineable(q []outItem) bool {
	n := 0
	for i := range q {
		it := &q[i]
		if it.run != nil || it.sent != nil || it.faulted || it.releaseHeld {
			return false
		}
		n += len(it.raw)
		if it.ack.ok {
			n += 32
		}
		if it.pkt != nil {
			n += 64 + it.pkt.payloadLen()
		}
		if n > inlineLimit {
			return false
		}
	}
	return true
}
