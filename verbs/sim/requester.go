package sim

// The requester: posting sends, transmitting them as packets, and what the responder answers.

import (
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// PostSend is ibv_post_send.
func (q *qp) PostSend(wr verbs.SendWR) error {
	const fn = "ibv_post_send"
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x destroyed", q.num)
	}
	switch q.state {
	case verbs.QPSInit, verbs.QPSRTR:
		// rxe's provider writes the WQE into the send queue and only then
		// hears the kernel refuse ("qp state must be RTS or SQD"): the
		// post returns EINVAL, yet the WR runs once the QP reaches RTS
		// (measured: post-before-connect puts a second WRITE on the wire).
		q.early = append(q.early, wr)
		fallthrough
	case verbs.QPSReset:
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x is in state %s; sends need %s", q.num, q.state.CName(), verbs.QPSRTS.CName())
	}
	if q.typ == verbs.QPTUD {
		return q.udPost(wr)
	}
	// Like rxe, nothing kicks the requester when the QP reaches RTS: the
	// WRs kept from before run when the next post rings the doorbell.
	q.runEarly()
	return q.post(wr)
}

// post queues a send WR on a QP in RTS (or ERR). Called with q.mu held.
func (q *qp) post(wr verbs.SendWR) error {
	const fn = "ibv_post_send"
	if err := q.checkSGList(fn, wr); err != nil {
		return err
	}
	switch wr.Opcode {
	case verbs.WRSend, verbs.WRSendWithImm, verbs.WRRDMAWrite, verbs.WRRDMAWriteWithImm, verbs.WRRDMARead:
	case verbs.WRAtomicCmpAndSwp, verbs.WRAtomicFetchAndAdd:
		if err := checkAtomicWR(wr); err != nil {
			return err
		}
	default:
		return verbs.Errorf(fn, errEINVAL, "opcode %s not supported on an RC QP of the simulated NIC", wr.Opcode)
	}
	if q.state == verbs.QPSErr {
		// Posting to a QP in error is allowed and completes at once as flushed.
		q.takeSlot()
		q.completeSend(verbs.WC{WRID: wr.WRID, Status: verbs.WCWRFlushErr, Opcode: wr.Opcode.CompletionOpcode()})
		return nil
	}
	if n := q.sqInUse(); n >= int(q.cap.MaxSendWR) {
		return verbs.Errorf(fn, errENOMEM, "send queue full: %d WRs outstanding (max_send_wr %d)", n, q.cap.MaxSendWR)
	}
	w := &sendWQE{wr: wr, signaled: q.sigAll || wr.Flags&verbs.SendSignaled != 0}
	// The WR is kept: its scatter list is copied, as the provider copies
	// it into the send queue.
	w.wr.SGList = append(w.sgl[:0:len(w.sgl)], wr.SGList...)
	w.segs = w.seg1[:0]
	// The local SGE check happens when the NIC executes the WR; here that
	// is now, and a failure completes when the WR reaches the head. Inline
	// data was copied by the CPU instead, keys unread (inline.go).
	if wr.Flags&verbs.SendInline != 0 && !wr.Opcode.ReadsRemote() {
		if err := q.gatherInline(fn, w); err != nil {
			return err
		}
	} else {
		q.gatherLocal(w)
	}
	q.deferLocalFault(w, sgeBytes(wr.SGList))
	if w.failed == verbs.WCSuccess && w.length > 1<<31 {
		w.failed = verbs.WCLocLenErr
	}
	if w.failed == verbs.WCSuccess {
		w.npkts = max(1, (w.length+q.pmtu-1)/q.pmtu)
		if wr.Opcode.IsAtomic() {
			w.npkts = 1
		}
		w.firstPSN = q.sqPSN
		q.sqPSN = psnAdd(q.sqPSN, w.npkts)
	}
	q.sq = append(q.sq, w)
	q.takeSlot()
	q.pump()
	q.checkHeadFailed()
	return nil
}

// pump transmits what has not been sent yet, as far as the window lets
// it (window.go): first the rest of a WQE it stopped in, then new ones.
func (q *qp) pump() {
	for !q.halted && q.state == verbs.QPSRTS {
		if w := q.partlySent(); w != nil {
			if !q.sendMore(w) {
				return
			}
			continue
		}
		if q.sendIdx >= len(q.sq) {
			return
		}
		w := q.sq[q.sendIdx]
		if w.failed != verbs.WCSuccess {
			return
		}
		if w.wr.Opcode.ReadsRemote() && q.rdAtomicInFlight() >= int(q.maxRdAtomic) {
			return // onReadResponse / onAtomicAck pump again
		}
		if q.windowRoom(w.firstPSN) == 0 {
			return // an ACK pumps again (onResponse)
		}
		if q.conn != nil {
			q.count(cntRDMASends)
		}
		w.sent, w.ackBase = 0, 0
		q.sendIdx++
		q.sendMore(w)
		q.armAckTimer()
	}
}

func (q *qp) checkHeadFailed() {
	if len(q.sq) > 0 && q.sq[0].failed != verbs.WCSuccess && q.state == verbs.QPSRTS {
		q.errorOut(q.sq[0], q.sq[0].failed)
	}
}

// transmit sends packets from..to-1 of w; again marks a retransmission.
func (q *qp) transmit(w *sendWQE, from, to int, again bool) {
	if q.conn == nil {
		return
	}
	wr := &w.wr
	if wr.Opcode.IsAtomic() {
		q.conn.send(outItem{srcQP: q.num, pkt: q.atomicPacket(w), again: again})
		return
	}
	if wr.Opcode == verbs.WRRDMARead {
		// A retried READ asks only for what has not come back (rxe_req.c
		// req_retry: "wqe->iova += npsn * qp->mtu"), at the PSN of the
		// first missing response.
		q.conn.send(outItem{srcQP: q.num, again: again, pkt: &packet{
			Opcode: verbs.OpRDMAReadRequest, AckReq: true, DestQP: q.destQPN, PSN: psnAdd(w.firstPSN, w.respPkts),
			HasRETH: true, RETH: verbs.RETH{VA: wr.RemoteAddr + uint64(w.respOff), RKey: wr.RKey, DMALen: uint32(w.length - w.respOff)},
		}})
		return
	}
	if from < to {
		q.conn.send(outItem{srcQP: q.num, run: q.runOf(w, from, to, again), again: again})
	}
}

// messageOpcode is the IBA opcode of a SEND or RDMA WRITE packet by its
// place in the message and whether it carries immediate data.
func messageOpcode(first, last, write, imm bool) uint8 {
	switch {
	case first && last && write && imm:
		return verbs.OpRDMAWriteOnlyWithImm
	case first && last && write:
		return verbs.OpRDMAWriteOnly
	case first && last && imm:
		return verbs.OpSendOnlyWithImm
	case first && last:
		return verbs.OpSendOnly
	case first && write:
		return verbs.OpRDMAWriteFirst
	case first:
		return verbs.OpSendFirst
	case last && write && imm:
		return verbs.OpRDMAWriteLastWithImm
	case last && write:
		return verbs.OpRDMAWriteLast
	case last && imm:
		return verbs.OpSendLastWithImm
	case last:
		return verbs.OpSendLast
	case write:
		return verbs.OpRDMAWriteMiddle
	}
	return verbs.OpSendMiddle
}

// ackThrough completes every transmitted WR whose last PSN is at or before
// psn (an ACK acknowledges everything before it).
func (q *qp) ackThrough(psn uint32) {
	for len(q.sq) > 0 && q.sendIdx > 0 {
		w := q.sq[0]
		if q.lateFaultAcked(w, psn) {
			return
		}
		if w.wr.Opcode.ReadsRemote() || psnDiff(psn, w.lastPSN()) < 0 {
			break
		}
		q.sq = q.sq[1:]
		q.sendIdx--
		q.ackProgress()
		if w.signaled {
			q.completeSend(verbs.WC{WRID: w.wr.WRID, Status: verbs.WCSuccess, Opcode: w.wr.Opcode.CompletionOpcode(), ByteLen: uint32(w.length)})
		}
		if q.state != verbs.QPSRTS {
			return
		}
	}
	q.checkHeadFailed()
}

func (q *qp) findSent(psn uint32) (int, *sendWQE) {
	for i, w := range q.sq[:q.sendIdx] {
		if d := psnDiff(psn, w.firstPSN); d >= 0 && d < w.npkts {
			return i, w
		}
	}
	return -1, nil
}

func (q *qp) onResponse(pk *packet) {
	if q.state != verbs.QPSRTS {
		return
	}
	// Whatever moved the oldest unacknowledged PSN lets more out.
	defer q.pump()
	if pk.Opcode == verbs.OpAtomicAcknowledge {
		q.onAtomicAck(pk)
		return
	}
	if pk.Opcode != verbs.OpAcknowledge {
		q.onReadResponse(pk)
		return
	}
	syn := pk.AETH.Syndrome
	switch syn & 0xE0 {
	case 0x00:
		q.onPlainACK(pk.PSN)
		q.ackThrough(pk.PSN)
	case 0x20: // RNR NAK
		q.count(cntRcvdRNRErr)
		q.ackThrough(psnAdd(pk.PSN, -1))
		_, w := q.findSent(pk.PSN)
		if w == nil || q.state != verbs.QPSRTS {
			return
		}
		w.rnrTries++
		if q.rnrRetry != 7 && w.rnrTries > int(q.rnrRetry) {
			q.count(cntRetryRNRExceeded)
			q.errorOut(w, verbs.WCRNRRetryExcErr)
			return
		}
		q.halted = true
		q.gen++
		gen, psn := q.gen, pk.PSN
		d := time.Duration(rnrTimerTable[syn&0x1F]) * time.Microsecond
		q.dev.p.stopTimer(q.rnrTimer)
		q.rnrTimer = q.dev.p.afterFunc(d, func() { q.rnrResume(gen, psn) })
	case 0x60: // NAK
		q.ackThrough(psnAdd(pk.PSN, -1))
		_, w := q.findSent(pk.PSN)
		if w == nil || q.state != verbs.QPSRTS {
			return
		}
		var st verbs.WCStatus
		switch syn {
		case verbs.SyndromeNAKPSNSeqErr:
			q.onSeqNAK(w, pk.PSN)
			return
		case verbs.SyndromeNAKInvReq:
			st = verbs.WCRemInvReqErr
		case verbs.SyndromeNAKRemAccess:
			st = verbs.WCRemAccessErr
		default:
			st = verbs.WCRemOpErr
		}
		q.errorOut(w, st)
	}
}

func (q *qp) rnrResume(gen int, psn uint32) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if gen != q.gen || q.state != verbs.QPSRTS {
		return
	}
	q.rnrTimer = nil
	q.halted = false
	q.resendFrom(psn)
}

// resendFrom retransmits everything already sent from psn on (go-back-N),
// then carries on with unsent WRs.
func (q *qp) resendFrom(psn uint32) {
	i, w := q.findSent(psn)
	if w != nil {
		// Only what was sent goes again: the window has not moved back,
		// so all of it still fits. rxe's AckReq count starts over at the
		// first packet resent (msgrun.go reqAckEvery).
		w.ackBase = psnDiff(psn, w.firstPSN)
		q.transmit(w, w.ackBase, w.sent, true)
		for _, x := range q.sq[i+1 : q.sendIdx] {
			x.ackBase = 0
			q.transmit(x, 0, x.sent, true)
		}
	}
	q.pump()
}

func (q *qp) onReadResponse(pk *packet) {
	if len(q.sq) == 0 || q.sendIdx == 0 {
		return
	}
	// Earlier WRITEs/SENDs are implicitly acknowledged by a later response.
	q.ackThrough(psnAdd(pk.PSN, -1))
	if len(q.sq) == 0 || q.sendIdx == 0 || q.state != verbs.QPSRTS {
		return
	}
	w := q.sq[0]
	if w.wr.Opcode != verbs.WRRDMARead || psnDiff(pk.PSN, psnAdd(w.firstPSN, w.respPkts)) != 0 {
		// A response past a lost one, or one already taken: rxe's
		// completer drops it without a count (rxe_comp.c check_psn,
		// COMPST_DONE); the ACK timer asks again.
		return
	}
	if pk.HasAETH && pk.AETH.Syndrome&0xE0 != 0 {
		q.errorOut(w, verbs.WCRemOpErr)
		return
	}
	n := len(pk.Payload)
	if w.respOff+n > w.length {
		q.errorOut(w, verbs.WCBadRespErr)
		return
	}
	writeSegs(w.segs, w.respOff, pk.Payload)
	w.respOff += n
	w.respPkts++
	q.ackProgress()
	if pk.Opcode == verbs.OpRDMAReadRespLast || pk.Opcode == verbs.OpRDMAReadRespOnly {
		if w.respOff != w.length || w.respPkts != w.npkts {
			q.errorOut(w, verbs.WCBadRespErr)
			return
		}
		q.sq = q.sq[1:]
		q.sendIdx--
		if w.signaled {
			q.completeSend(verbs.WC{WRID: w.wr.WRID, Status: verbs.WCSuccess, Opcode: verbs.WCRDMARead, ByteLen: uint32(w.length)})
		}
		q.checkHeadFailed()
		q.pump()
	}
}

// runEarly posts the WRs rxe kept from before RTS (see PostSend), ahead
// of the WR being posted now. Called with q.mu held.
func (q *qp) runEarly() {
	early := q.early
	q.early = nil
	for _, wr := range early {
		q.post(wr)
	}
}

// checkSGList is rxe's validate_send_wr on the scatter/gather list: no
// more SGEs than max_send_sge, and inline data that fits the WQE.
func (q *qp) checkSGList(fn string, wr verbs.SendWR) error {
	if len(wr.SGList) > int(q.cap.MaxSendSGE) {
		return verbs.Errorf(fn, errEINVAL, "num_sge %d exceeds max_send_sge %d", len(wr.SGList), q.cap.MaxSendSGE)
	}
	if n := sgeBytes(wr.SGList); wr.Flags&verbs.SendInline != 0 && n > int(q.cap.MaxInlineData) {
		return verbs.Errorf(fn, errEINVAL, "%d bytes inline exceed max_inline_data %d", n, q.cap.MaxInlineData)
	}
	return nil
}

// sgeBytes is the total length of a WR's scatter/gather list.
func sgeBytes(sg []verbs.SGE) int {
	n := 0
	for _, g := range sg {
		n += int(g.Length)
	}
	return n
}
