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
// bytes in br, not yet discarded). Its packets are traced and its
// payload read into the connection's own buffer; they are then placed at
// once when their QP would take each of them in order, else handed to
// the QP one by one, as packet frames are. (Reading the payload straight
// into the MR saved no measurable CPU: the SIOCINQ check that keeps the
// MR's lock from being held across a wait on the peer cost as much as
// the copy it saved, BenchmarkWriteTwoProcesses 60-72 against 62-67
// µs of CPU per 64 KiB WRITE.)
func (id *cmID) readRun(c *conn, b *burst, hdr []byte, n int) error {
	r, plen, err := decodeRunHeader(hdr[frameHeaderLen:], frameBodyLen(hdr))
	if err != nil {
		return err
	}
	c.br.Discard(n)
	q := id.packetQP(b, r.destQP)
	id.p.dev.traceRun(&r, r.from, r.to, false, r.destQP, traceMark{qp: q, at: b.at})
	if cap(c.runBuf) < plen {
		c.runBuf = make([]byte, plen)
	}
	payload := c.runBuf[:plen]
	if _, err := io.ReadFull(c.br, payload); err != nil {
		return noEOF(err)
	}
	if q != nil && (c.tap != nil || !q.placeRun(c, &r, payload)) {
		q.receiveRun(c, &r, payload)
	}
	return nil
}

// receiveRun hands a run's packets to the QP one by one.
func (q *qp) receiveRun(c *conn, r *msgRun, payload []byte) {
	var pk packet
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
// (see runFits), with one copy. It reports false, having changed
// nothing, when any packet would be answered otherwise.
func (q *qp) placeRun(c *conn, r *msgRun, payload []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	cur, ok := q.runFits(c, r, len(payload))
	if ok {
		writeSegs(cur.segs, cur.off, payload)
		q.tookRun(cur, r, len(payload))
	}
	return ok
}

// runFits says whether this QP would take every packet of r, n bytes in
// all, in order: onRequest and onWrite would write each payload, advance
// the PSN and ACK the last. It returns the WRITE the bytes go to.
func (q *qp) runFits(c *conn, r *msgRun, n int) (respOp, bool) {
	if q.destroyed || q.conn != c || (q.state != verbs.QPSRTR && q.state != verbs.QPSRTS) ||
		q.pmtu != r.pmtu || q.rqPSN != psnAdd(r.firstPSN, r.from) || q.access&verbs.AccessRemoteWrite == 0 {
		return respOp{}, false
	}
	cur, ok := q.runTarget(r)
	ends := r.to == r.npkts
	if !ok || cur.off+n > cur.limit || (ends && cur.off+n != cur.limit) {
		return respOp{}, false
	}
	return cur, true
}

// tookRun makes the changes r's packets, n bytes written to cur, make
// one by one in onRequest and onWrite.
func (q *qp) tookRun(cur respOp, r *msgRun, n int) {
	cur.off += n
	q.sentSeqNAK = false
	q.rqPSN = psnAdd(q.rqPSN, r.to-r.from)
	q.rcur = cur
	if r.to == r.npkts {
		q.msn++
		q.count(cntRDMARecvs)
		q.rcur = respOp{}
		q.sendAck(psnAdd(r.firstPSN, r.npkts-1), verbs.SyndromeACK)
	}
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

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
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
