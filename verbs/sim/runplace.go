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
// bytes in br, not yet discarded). Its packets are traced; their payload
// then goes straight into the MR when the QP would take each of them in
// order (placeRun), else into the connection's own buffer and to the QP
// one by one, as packet frames do.
func (id *cmID) readRun(c *conn, b *burst, hdr []byte, n int) error {
	r, plen, err := decodeRunHeader(hdr[frameHeaderLen:], frameBodyLen(hdr))
	if err != nil {
		return err
	}
	c.br.Discard(n)
	q := id.packetQP(b, r.destQP)
	id.p.dev.traceRun(&r, r.from, r.to, false, r.destQP, traceMark{qp: q, at: b.at})
	if q != nil && c.tap == nil {
		if placed, err := q.placeRun(c, &r, plen); placed || err != nil {
			return err
		}
	}
	payload, err := c.readPayload(plen)
	if err != nil {
		return err
	}
	if q != nil {
		q.receiveRun(c, &r, payload)
	}
	return nil
}

// readPayload reads n bytes of payload into the connection's own buffer.
func (c *conn) readPayload(n int) ([]byte, error) {
	payload := c.payloadBuf(n)
	if _, err := io.ReadFull(c.br, payload); err != nil {
		return nil, noEOF(err)
	}
	return payload, nil
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
// (see runFits): its n bytes of payload go from the socket into the MR,
// copied once. It reports false, having read and changed nothing, when
// any packet would be answered otherwise. The QP is not locked while the
// payload comes (the application may post or poll meanwhile): should it
// change by then, the packets go to it one by one after all, and what
// they carried is in the MR already, as a NIC that had placed them
// before the change would have left it.
func (q *qp) placeRun(c *conn, r *msgRun, n int) (bool, error) {
	q.mu.Lock()
	pl, ok := q.runFits(c, r, n)
	q.mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := c.readIntoMR(pl.seg.m, pl.seg.off+pl.off, n); err != nil {
		return true, err
	}
	q.mu.Lock()
	now, ok := q.runFits(c, r, n)
	if ok && now == pl {
		q.tookRun(pl, r, n)
		q.mu.Unlock()
		return true, nil
	}
	q.mu.Unlock()
	payload := c.payloadBuf(n)
	readSegs([]memSeg{pl.seg}, pl.off, payload)
	q.receiveRun(c, r, payload)
	return true, nil
}

// runPlace is where a run's payload goes: the WRITE's one MR range, the
// offset in it the run starts at, and the WRITE's length. A value, so
// that placing a run allocates nothing.
type runPlace struct {
	seg        memSeg
	off, limit int
}

// runFits says whether this QP would take every packet of r, n bytes in
// all, in order: onRequest and onWrite would write each payload, advance
// the PSN and ACK the last. It returns where the bytes go.
func (q *qp) runFits(c *conn, r *msgRun, n int) (runPlace, bool) {
	if q.destroyed || q.conn != c || (q.state != verbs.QPSRTR && q.state != verbs.QPSRTS) ||
		q.pmtu != r.pmtu || q.rqPSN != psnAdd(r.firstPSN, r.from) || q.access&verbs.AccessRemoteWrite == 0 {
		return runPlace{}, false
	}
	pl, ok := q.runTarget(r)
	ends := r.to == r.npkts
	if !ok || pl.off+n > pl.limit || (ends && pl.off+n != pl.limit) {
		return runPlace{}, false
	}
	return pl, true
}

// tookRun makes the changes r's packets, n bytes written at pl, make one
// by one in onRequest and onWrite.
func (q *qp) tookRun(pl runPlace, r *msgRun, n int) {
	q.sentSeqNAK = false
	q.rqPSN = psnAdd(q.rqPSN, r.to-r.from)
	// A long WRITE asks for ACKs on the way (reqAckEvery); the last
	// packet's comes below, once the message is done.
	for i := r.from; i < min(r.to, r.npkts-1); i++ {
		if r.asksACK(i) {
			q.sendAck(psnAdd(r.firstPSN, i), verbs.SyndromeACK)
		}
	}
	switch {
	case r.to == r.npkts:
		q.msn++
		q.count(cntRDMARecvs)
		q.rcur = respOp{}
		q.sendAck(psnAdd(r.firstPSN, r.npkts-1), verbs.SyndromeACK)
	case r.from > 0: // the WRITE in progress goes on
		q.rcur.off += n
	default: // a WRITE that the next run frame continues
		q.rcur = respOp{kind: respWrite, segs: []memSeg{pl.seg}, off: n, limit: pl.limit}
	}
}

// runTarget is where a run's payload goes: a new WRITE for the run that
// starts the message (its RETH checked as onWrite checks it), the one in
// progress for a run that continues it.
func (q *qp) runTarget(r *msgRun) (runPlace, bool) {
	if r.from > 0 {
		if q.rcur.kind != respWrite || len(q.rcur.segs) != 1 {
			return runPlace{}, false
		}
		return runPlace{seg: q.rcur.segs[0], off: q.rcur.off, limit: q.rcur.limit}, true
	}
	if q.rcur.kind != respNone {
		return runPlace{}, false
	}
	seg, ok := q.dev.checkRange(r.rkey, r.remoteAddr, uint64(r.length), q.pd, verbs.AccessRemoteWrite)
	return runPlace{seg: seg, limit: r.length}, ok
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
