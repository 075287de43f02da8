package sim

// The connection's reader: frames in bursts. A burst lasts while the
// peer's frames keep coming without the reader having to wait for them:
// on a socket, until a read finds nothing (sockReader.beforeWait), and
// at most burstRefresh frames; elsewhere (net.Pipe in tests) while bufio
// holds a whole frame. While it lasts, what the reader queues (ACKs)
// waits, and at its end the reader writes it (flushInline); the packets
// it traces share one clock reading; a frame's body is read where bufio
// holds it. Each packet still goes into the trace ring before the QP
// sees it: an answer sent meanwhile must come after it there.

import "time"

// burstRefresh bounds a burst: a stream that never lets the socket run
// dry is still acknowledged, and timed, every this many frames.
const burstRefresh = 64

// burst is the reader's state between two waits.
type burst struct {
	on     bool
	frames int
	at     time.Time
	// to caches the QP the packets are for (one per RC connection), so
	// a packet takes no device lock to find it.
	to struct {
		num uint32
		q   *qp
	}
}

// readLoop reads frames until the connection ends.
func (id *cmID) readLoop(c *conn, buf []byte) {
	defer c.readerExited()
	var b burst
	sockWaits := c.sock != nil && c.sock.raw != nil
	if sockWaits {
		c.sock.beforeWait = func() { id.endBurst(c, &b) }
	}
	for {
		kind, body, n, err := peekFrame(c.br, buf)
		if err == nil {
			id.startFrame(c, &b)
			if kind == kindRun {
				err = id.readRun(c, &b, body, n)
			} else if err = id.onFrame(c, &b, kind, body); n > 0 {
				c.br.Discard(n)
			}
			if b.frames >= burstRefresh || c.ackDue() || !sockWaits && !frameReady(c.br) {
				id.endBurst(c, &b)
			}
		}
		if err != nil {
			id.endBurst(c, &b)
			if !c.isLocalClosed() {
				id.p.log.Debug("sim: connection lost", "peer", id.peer, "err", err)
				c.peerClosed()
				id.connLost(c)
			}
			// A QP bound to this connection has no path to its peer any
			// more: what a real RNIC finds out from its retries.
			id.p.dev.peerLeft(c)
			return
		}
	}
}

// startFrame begins a burst.
func (id *cmID) startFrame(c *conn, b *burst) {
	if !b.on {
		c.holdWriter()
		b.on, b.frames, b.at = true, 0, time.Now()
	}
	b.frames++
}

// endBurst sends what the burst queued.
func (id *cmID) endBurst(c *conn, b *burst) {
	if b.on {
		b.on = false
		c.flushInline()
	}
}

// onFrame handles one frame whose body is only valid until it returns.
func (id *cmID) onFrame(c *conn, b *burst, kind byte, body []byte) error {
	switch kind {
	case kindCM:
		m, err := decodeCM(body)
		if err != nil {
			return err
		}
		c.tap.cm(&m, false)
		id.onCM(c, &m)
	case kindPacket:
		pk, err := decodePacket(body)
		if err != nil {
			return err
		}
		q := id.packetQP(b, pk.DestQP)
		id.p.dev.trace(&pk, false, pk.DestQP, traceMark{qp: q, at: b.at})
		c.tap.packet(&pk, pk.Payload, false)
		// The QP that RTR bound to this connection takes it: the id's
		// own (rdma_create_qp) or the application's.
		if q != nil {
			q.receive(c, &pk)
		}
	case kindImpaired:
		id.p.dev.peerImpairs(c)
	case kindDatagram:
		g, err := decodeDatagram(body)
		if err != nil {
			return err
		}
		id.p.dev.onDatagram(c, &g)
	}
	return nil
}

// packetQP is the QP numbered n, cached for the burst's reader.
func (id *cmID) packetQP(b *burst, n uint32) *qp {
	if b.to.q == nil || b.to.num != n {
		b.to.num, b.to.q = n, id.p.dev.qpByNum(n)
	}
	return b.to.q
}
