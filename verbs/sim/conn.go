package sim

import (
	"bufio"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// outItem is one thing to write: raw bytes (preamble, encoded CM) or a
// packet whose payload is copied from MRs at encode time.
type outItem struct {
	raw []byte
	pkt *packet
	run *msgRun // a message's packets (msgrun.go)
	// sent, if set, runs once the item has been handed to the socket (or
	// dropped with the connection): a UD send completes only then, as on
	// rxe, whose completion follows the packet's transmission.
	sent func()
	// srcQP is the QP that sent pkt: the trace says which QP of the
	// device each packet belongs to (two sides may share one device).
	srcQP uint32
	// again marks a retransmitted request (the trace shows it).
	again bool
	// faulted: --wire already numbered this packet (a held-back one
	// coming out late); releaseHeld asks the writer to send a packet
	// reorder= held back when nothing came after it (faults.go).
	faulted, releaseHeld bool
	// ack is a plain ACK or NAK, queued by value (ack.go).
	ack ackItem
}

// conn is the TCP connection of one RC connection, with its writer
// goroutine. Enqueuing never blocks, so the reader goroutine (which sends
// ACKs and read responses) can never deadlock against the peer's reader.
type conn struct {
	p   *Provider
	nc  net.Conn
	br  *bufio.Reader
	tap *tap // nil unless the provider writes a pcap

	mu   sync.Mutex
	cond *sync.Cond
	q    []outItem
	// batching holds the writer back while the reader is in a burst:
	// the ACKs for a burst of packets then leave in one write (and
	// adjacent ACKs merge), written by the reader itself at the burst's
	// end (flushInline), instead of one wake-up each.
	batching bool
	// burstAcked is the PSNs the ACKs queued in this burst acknowledge.
	burstAcked atomic.Int32
	// writing is the write token: the writer goroutine or the reader
	// (flushInline) holds it while it encodes and writes, so the two
	// never interleave their bytes.
	writing bool
	// carry is what the reader's write left unwritten (the socket was
	// full): the writer goroutine writes it before anything queued.
	carry       []byte
	spare       []outItem // the queue's other array, while it is not in use
	inline      []byte    // flushInline's encoding buffer
	sock        *sockReader
	sockW       *sockWriter // flushInline's, made on its first write
	closing     bool        // close once the queue is written
	closed      bool
	localClosed bool // we closed it: the reader's error is not a peer loss

	readDone     chan struct{} // closed when the reader goroutine is done with nc
	readDoneOnce sync.Once
	// faults is --wire on this connection's packets (faults.go); nil, the
	// rule, costs the writer one comparison per item.
	faults *wireFaults
	// sentBy caches the QP the writer's packets come from (one per RC
	// connection), so tracing a packet takes no device lock; the writer
	// goroutine alone uses it.
	sentBy struct {
		num uint32
		q   *qp
	}
	// runBuf is where the reader puts a run frame's payload (runplace.go),
	// grown to the largest run that has come (maxRunPayload at most).
	runBuf []byte
	// batchAt is when the writer took its batch: the time the trace gives
	// each packet of it (one clock read per batch, not per packet).
	batchAt time.Time
}

// sender is the QP numbered n, cached for the writer goroutine.
func (c *conn) sender(n uint32) *qp {
	if c.sentBy.q == nil || c.sentBy.num != n {
		c.sentBy.num, c.sentBy.q = n, c.p.dev.qpByNum(n)
	}
	return c.sentBy.q
}

// lingerTime bounds how long a closing connection waits for the peer to
// close its side after ours is shut down.
const lingerTime = time.Second

// newConn starts the connection's writer; in is its reading end, made
// here when it is the zero connIn.
func newConn(p *Provider, nc net.Conn, in connIn) *conn {
	if in.br == nil {
		in = newConnIn(nc)
	}
	c := &conn{p: p, nc: nc, br: in.br, sock: in.sock, readDone: make(chan struct{}), tap: newTap(p.pcap, nc)}
	c.cond = sync.NewCond(&c.mu)
	p.goStart(c.writeLoop)
	return c
}

// send queues it and reports whether it was queued (not on a closing
// connection); it.sent runs only for a queued item.
func (c *conn) send(it outItem) bool {
	c.mu.Lock()
	queued := !c.closed && !c.closing
	if queued {
		c.q = append(c.q, it)
		if it.ack.ok && c.p.opts.RxeWindow {
			c.burstAcked.Add(it.ack.covers)
		}
		if !c.batching && !c.writing {
			c.cond.Signal()
		}
	} else if it.raw != nil {
		// A NIC puts a CM message on the wire whether or not the peer
		// still listens (a DREP to a peer that already destroyed its id,
		// which its CM drops in timewait): the capture shows it.
		c.tap.raw(it.raw)
	}
	c.mu.Unlock()
	return queued
}

// ackFlushPSNs ends a reader's burst early: its ACKs leave once they
// acknowledge half of what the peer's requester may have unacknowledged
// (window.go), so that a peer stopped by its window is never left to
// wait for the end of a burst that only it could have continued.
const ackFlushPSNs = maxUnackedPSNs / 2

// ackDue says whether the burst's ACKs should leave now (only counted
// with Options.RxeWindow).
func (c *conn) ackDue() bool { return c.burstAcked.Load() >= ackFlushPSNs }

// holdWriter starts a burst: the writer is not woken for what is
// queued until flushInline ends it.
func (c *conn) holdWriter() {
	c.mu.Lock()
	c.batching = true
	c.mu.Unlock()
}

// frameReady reports whether a whole frame is already buffered, so that
// reading it cannot block.
func frameReady(br *bufio.Reader) bool {
	if br.Buffered() < frameHeaderLen {
		return false
	}
	h, err := br.Peek(frameHeaderLen)
	if err != nil {
		return false
	}
	_, n, err := decodeFrameHeader(h)
	return err == nil && br.Buffered() >= frameHeaderLen+n
}

// minAckBurst is the batch size from which ACKs are coalesced.
const minAckBurst = 8

// mergeAcks drops a plain ACK that is followed, in the same batch, by a
// later plain ACK to the same QP: an ACK acknowledges every PSN up to its
// own (IBA 9.7.5.1.1 "coalesced acknowledgements").
func mergeAcks(batch []outItem) []outItem {
	// rxe acknowledges every request that asks for it; only a burst (a
	// stream of WRITEs, where it pays) is coalesced, so the tour's few
	// packets look on the wire as they do on Soft-RoCE.
	if len(batch) < minAckBurst {
		return batch
	}
	out := batch[:0]
	for i, it := range batch {
		if i+1 < len(batch) && isPlainAck(it) && isPlainAck(batch[i+1]) && it.ack.destQP == batch[i+1].ack.destQP {
			continue
		}
		out = append(out, it)
	}
	for i := len(out); i < len(batch); i++ {
		batch[i] = outItem{} // let the dropped packets be collected
	}
	return out
}

func isPlainAck(it outItem) bool {
	return it.ack.ok && it.ack.syn == verbs.SyndromeACK
}

func (c *conn) sendCM(m *cmMsg) { c.send(outItem{raw: encodeCM(m)}) }

// closeAfterFlush closes the connection once everything queued is written.
func (c *conn) closeAfterFlush() {
	// A peer that stops reading must not pin the writer forever.
	c.nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
	c.mu.Lock()
	c.closing = true
	c.localClosed = true
	c.cond.Signal()
	c.mu.Unlock()
}

// peerClosed is the reader's end of the connection (the peer closed it,
// or sent what cannot be framed): what is already queued, such as a NAK
// for the last request, still goes out before the connection closes.
func (c *conn) peerClosed() {
	c.nc.SetWriteDeadline(time.Now().Add(2 * time.Second))
	c.mu.Lock()
	c.closing = true
	c.cond.Signal()
	c.mu.Unlock()
}

// readerExited says the reader goroutine no longer reads nc.
func (c *conn) readerExited() { c.readDoneOnce.Do(func() { close(c.readDone) }) }

// shutdown ends a drained connection gracefully: FIN after the last byte,
// then wait (bounded) for the reader to see the peer's end before closing.
// Closing a socket with unread input sends a RST instead, and a RST may
// discard what is still in the send queue, a NAK included.
func (c *conn) shutdown() {
	if hc, ok := c.nc.(interface{ CloseWrite() error }); ok && hc.CloseWrite() == nil {
		c.nc.SetReadDeadline(time.Now().Add(lingerTime))
		t := time.NewTimer(lingerTime)
		select {
		case <-c.readDone:
		case <-t.C:
		}
		t.Stop()
	}
	c.nc.Close()
}

// abort closes the connection now.
func (c *conn) abort() {
	c.mu.Lock()
	c.localClosed = true
	c.closed = true
	dropped := c.q
	c.q, c.carry = nil, nil
	c.cond.Signal()
	c.mu.Unlock()
	c.nc.Close()
	if len(dropped) > 0 {
		// Not here: the caller may hold locks the callbacks take.
		c.p.goStart(func() { runSent(dropped) })
	}
}

// runSent runs the sent callbacks of items written or dropped.
func runSent(items []outItem) {
	for _, it := range items {
		if it.sent != nil {
			it.sent()
		}
	}
}

func (c *conn) isLocalClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.localClosed
}
