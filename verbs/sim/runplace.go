package sim

// The receiving side of run frames (runframe.go): every packet of the
// run is traced, then either placed at once, when the QP would take
// each of them in order, or handed to the QP one by one, as packet
// frames are, so that whatever the responder answers to one packet (a
// NAK, a duplicate ACK, an error) is exactly what it answers on rxe.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rdmatour/rdmatour/verbs"
)

// readRun handles the run frame whose frame and run headers are hdr (n
// bytes in br, not yet discarded): it reads the payload into the
// connection's own buffer, the run's packets then go to their QP.
func (id *cmID) readRun(c *conn, b *burst, hdr []byte, n int) error {
	r, plen, err := decodeRunHeader(hdr[frameHeaderLen:], frameBodyLen(hdr))
	if err != nil {
		return err
	}
	c.br.Discard(n)
	if cap(c.runBuf) < plen {
		c.runBuf = make([]byte, plen)
	}
	payload := c.runBuf[:plen]
	if _, err := io.ReadFull(c.br, payload); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	id.onRun(c, b, &r, payload)
	return nil
}

// onRun traces a run's packets as received, then places them or hands
// them over one by one.
func (id *cmID) onRun(c *conn, b *burst, r *msgRun, payload []byte) {
	q := id.packetQP(b, r.destQP)
	var pk packet
	for i := r.from; i < r.to; i++ {
		r.fill(&pk, i)
		id.p.dev.trace(&pk, false, r.destQP, traceMark{qp: q, at: b.at})
	}
	if q == nil || (c.tap == nil && q.placeRun(c, r, payload)) {
		return
	}
	for i := r.from; i < r.to; i++ {
		r.fill(&pk, i)
		off := (i - r.from) * r.pmtu
		pk.segs, pk.segLen = nil, 0
		pk.Payload = payload[off : off+min(r.pmtu, len(payload)-off)]
		c.tap.packet(&pk, pk.Payload, false)
		q.receive(c, &pk)
	}
}

// placeRun takes a run whose every packet this QP would accept in order
// (onRequest and onWrite, packet by packet, would write each payload,
// advance the PSN and ACK the last): it writes the payload with one copy
// and makes the same changes at once. It reports false, having changed
// nothing, when any packet would be answered otherwise.
func (q *qp) placeRun(c *conn, r *msgRun, payload []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed || q.conn != c || (q.state != verbs.QPSRTR && q.state != verbs.QPSRTS) ||
		q.pmtu != r.pmtu || q.rqPSN != psnAdd(r.firstPSN, r.from) || q.access&verbs.AccessRemoteWrite == 0 {
		return false
	}
	cur, ok := q.runTarget(r)
	ends := r.to == r.npkts
	if !ok || cur.off+len(payload) > cur.limit || (ends && cur.off+len(payload) != cur.limit) {
		return false
	}
	writeSegs(cur.segs, cur.off, payload)
	cur.off += len(payload)
	q.sentSeqNAK = false
	q.rqPSN = psnAdd(q.rqPSN, r.to-r.from)
	q.rcur = cur
	if ends {
		q.msn++
		q.count(cntRDMARecvs)
		q.rcur = respOp{}
		q.sendAck(psnAdd(r.firstPSN, r.npkts-1), verbs.SyndromeACK)
	}
	return true
}

// runTarget is the WRITE a run's payload goes to: a new one for the
// run that starts the message (its RETH checked as onWrite checks it),
// the one in progress for a run that continues it.
func (q *qp) runTarget(r *msgRun) (respOp, bool) {
	if r.from > 0 {
		return q.rcur, q.rcur.kind == respWrite
	}
	if q.rcur.kind != respNone {
		return respOp{}, false
	}
	seg, ok := q.dev.checkRange(r.rkey, r.remoteAddr, uint64(r.length), q.pd, verbs.AccessRemoteWrite)
	if !ok {
		return respOp{}, false
	}
	return respOp{kind: respWrite, segs: []memSeg{seg}, limit: r.length}, true
}

// runHeaderReady says whether br holds a run frame's headers: the
// payload that follows is on its way (the sender writes a run frame in
// one go), so the burst it belongs to goes on.
func runHeaderReady(br *bufio.Reader, kind byte) bool {
	return kind == kindRun && br.Buffered() >= frameHeaderLen+runHeaderLen
}

// peekRunHeader peeks the headers of a run frame whose body is l bytes.
func peekRunHeader(br *bufio.Reader, l int) (kind byte, hdr []byte, n int, err error) {
	if l < runHeaderLen {
		return 0, nil, 0, fmt.Errorf("%w: run frame of %d bytes", errWire, l)
	}
	hdr, err = br.Peek(frameHeaderLen + runHeaderLen)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, 0, err
	}
	return kindRun, hdr, len(hdr), nil
}

// frameBodyLen is the body length in a frame header decodeFrameHeader
// has checked.
func frameBodyLen(h []byte) int { return int(binary.BigEndian.Uint32(h[4:])) }
