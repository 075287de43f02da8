package sim

// --wire: the faults a QP puts on the packets it sends (verbs.WireFaults).
//
// The sim's wire is TCP, which loses nothing, so a fault is made where a
// real one would sit: between the sender's NIC and the peer's. The
// connection's writer numbers the transport packets of its QP as they go
// out (CM messages are not numbered; retransmissions are), and loses,
// doubles or holds back the ones the faults name. A lost packet counts
// in the sender's sent_pkts and never in the peer's rcvd_pkts, as for a
// packet dropped by a switch; the trace keeps it, marked lost, and the
// pcap leaves it out (a switch's loss never reaches the receiver).
// Measured against rxe between two guests (scripts/wirefaults.sh, the
// receiving host dropping the packets with nftables): for drop=2 of a
// 3-packet WRITE, drop=1 of the server's ACK, loss=100% with retry_count
// 3 and drop=1 with retry_count 0, rxe sent the same packets in the same
// order, PSNs, NAK syndromes and retransmissions included
// (TestSimWireFaultsMatchRxe; the times are in wire/testdata/README.md).
// There the drop must be the receiver's (netfilter INPUT): a packet the
// sender's own OUTPUT chain drops is no loss to rxe, whose ip_local_out
// then fails, so that rxe_xmit_packet returns -EAGAIN and the requester
// rolls the WQE back and sends the packet again at once (rxe_req.c
// rxe_requester, rollback_state; rxe_net.c rxe_send).
//
// Both ends must run their local ACK timer (retry.go) from then on: a
// lost request or ACK is noticed only by a timeout. The writer therefore
// tells the peer once, before its first transport packet (so after the
// CM handshake, whose frames the peer reads alone), with a kindImpaired
// frame (no body), and the peer's QP starts its watch.

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// kindImpaired frames say "this peer impairs its wire": the receiving
// QP runs its ACK timer (see above).
const kindImpaired = 4

// reorderHold bounds how long reorder= holds a packet when nothing
// follows it: it then goes out alone, late.
const reorderHold = 20 * time.Millisecond

// wireFaults is one connection's faults. Only the writer goroutine
// touches it once installed (its numbering is in wire order).
type wireFaults struct {
	plan     verbs.WireFaults
	n        int        // transport packets numbered so far
	rng      *rand.Rand // loss=P%; nil without it
	held     *outItem   // reorder: waits for the packet behind it
	notified bool       // the kindImpaired frame went out
}

func newWireFaults(f verbs.WireFaults) *wireFaults {
	w := &wireFaults{plan: f}
	if f.LossPercent > 0 {
		w.rng = rand.New(rand.NewPCG(f.Seed, 0x7269646d61746f75)) // same seed, same losses
	}
	return w
}

// faultKind is what happens to one packet.
type faultKind int

const (
	faultNone faultKind = iota
	faultDrop
	faultDup
	faultDelay
	faultReorder
)

// next numbers the next packet and says what happens to it (and, for a
// delay, how long).
func (w *wireFaults) next() (faultKind, time.Duration) {
	w.n++
	n := w.n
	switch {
	case slices.Contains(w.plan.Drop, n):
		return faultDrop, 0
	case w.rng != nil && w.rng.Float64()*100 < w.plan.LossPercent:
		return faultDrop, 0
	case slices.Contains(w.plan.Dup, n):
		return faultDup, 0
	case slices.Contains(w.plan.Reorder, n):
		return faultReorder, 0
	}
	for _, d := range w.plan.Delay {
		if d.N == n {
			return faultDelay, d.D
		}
	}
	return faultNone, 0
}

// ImpairWire implements verbs.WireImpairer.
func (q *qp) ImpairWire(f verbs.WireFaults) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.Errorf("--wire", errEINVAL, "QP 0x%x destroyed", q.num)
	}
	if q.typ != verbs.QPTRC {
		return verbs.Errorf("--wire", errEINVAL, "faults are for RC QPs; QP 0x%x is %s", q.num, q.typ)
	}
	q.faults = f
	if !f.IsZero() {
		q.watchAcks()
	}
	if q.conn != nil {
		q.conn.impair(f)
	}
	return nil
}

// bindConn is RTR binding the QP to its connection: the faults already
// asked for go with it. q.mu must be held.
func (q *qp) bindConn(c *conn) {
	q.conn = c
	if c != nil && !q.faults.IsZero() {
		c.impair(q.faults)
	}
}

// impair installs f on the connection (none: the writer's rule again);
// its writer tells the peer.
func (c *conn) impair(f verbs.WireFaults) {
	var w *wireFaults
	if !f.IsZero() {
		w = newWireFaults(f)
	}
	c.mu.Lock()
	c.faults = w
	c.mu.Unlock()
}

func impairedFrame() []byte {
	b := make([]byte, frameHeaderLen)
	putFrameHeader(b, kindImpaired, 0)
	return b
}

// peerImpairs is the peer's kindImpaired frame: its QPs bound to c watch
// for lost packets from now on.
func (d *device) peerImpairs(c *conn) {
	for _, q := range d.boundTo(c) {
		q.mu.Lock()
		q.watchAcks()
		q.mu.Unlock()
	}
}

// encodeFaulted is encodeItem under --wire: it numbers transport
// packets and loses, doubles or holds back those the faults name.
func (c *conn) encodeFaulted(buf []byte, it *outItem, f *wireFaults) []byte {
	if it.pkt == nil && it.ack.ok { // --wire counts and holds packets
		pk := it.ack.packet()
		it.pkt, it.ack = &pk, ackItem{}
	}
	switch {
	case it.releaseHeld:
		if f.held != nil {
			buf = c.encodeItem(buf, f.held)
			f.held = nil
		}
		return buf
	case it.pkt == nil || it.faulted:
		return c.encodeItem(buf, it)
	}
	if !f.notified {
		buf = c.encodeNotice(buf, f)
	}
	kind, d := f.next()
	switch kind {
	case faultDrop:
		c.p.dev.trace(it.pkt, true, it.srcQP, traceMark{lost: true, again: it.again, qp: c.sender(it.srcQP), at: c.batchAt})
		return buf
	case faultDelay:
		late := *it
		late.faulted = true
		c.p.afterFunc(d, func() { c.send(late) })
		return buf
	case faultReorder:
		late := *it
		late.faulted = true
		f.held = &late
		c.p.afterFunc(reorderHold, func() { c.send(outItem{releaseHeld: true}) })
		return buf
	case faultDup:
		buf = c.encodeItem(buf, it)
	}
	buf = c.encodeItem(buf, it)
	if f.held != nil {
		buf = c.encodeItem(buf, f.held) // the packet it went out behind
		f.held = nil
	}
	return buf
}

// encodeNotice writes the kindImpaired frame once.
func (c *conn) encodeNotice(buf []byte, f *wireFaults) []byte {
	if f.notified {
		return buf
	}
	f.notified = true
	return append(buf, impairedFrame()...)
}
