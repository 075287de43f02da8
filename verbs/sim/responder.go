package sim

// The responder: ACKs and NAKs, SEND, WRITE and READ requests, and posted receives.

import (
	"github.com/rdmatour/rdmatour/verbs"
)

func (q *qp) sendAck(psn uint32, syn uint8) {
	if q.conn == nil {
		return
	}
	covers := int32(1)
	if q.acked {
		covers = int32(max(1, psnDiff(psn, q.lastAcked)))
	}
	q.acked, q.lastAcked = true, psn
	q.conn.send(outItem{srcQP: q.num, ack: ackItem{ok: true, syn: syn, destQP: q.destQPN, psn: psn, msn: q.msn & 0xFFFFFF, covers: covers}})
}

// nakFatal sends a NAK and puts the responder QP in error, as rxe does for
// class C errors (invalid request, remote access, remote operation).
func (q *qp) nakFatal(psn uint32, syn uint8) {
	q.sendAck(psn, syn)
	q.moveToErr()
}

func (q *qp) rnrNAK(psn uint32) {
	q.count(cntSendRNRErr)
	q.sendAck(psn, verbs.SyndromeRNRNAKBase|q.minRNR&0x1F)
}

func (q *qp) onRequest(pk *packet) {
	if q.state != verbs.QPSRTR && q.state != verbs.QPSRTS {
		return
	}
	if !q.inSequence(pk) {
		return
	}
	if !q.lengthFits(pk) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	op := pk.Opcode
	switch op {
	case verbs.OpSendFirst, verbs.OpSendOnly, verbs.OpSendOnlyWithImm,
		verbs.OpSendMiddle, verbs.OpSendLast, verbs.OpSendLastWithImm:
		q.onSend(pk)
	case verbs.OpRDMAReadRequest:
		q.onRead(pk)
	case verbs.OpCompareSwap, verbs.OpFetchAdd:
		q.onAtomic(pk)
	default:
		q.onWrite(pk)
	}
}

// lengthFits is rxe's length check (check_length, or check_rkey for a
// WRITE in older kernels): a FIRST or MIDDLE packet carries exactly this
// QP's path MTU, an ONLY or LAST one at most that. A peer whose path MTU
// is larger than ours fails here: ERR_LENGTH, an invalid-request NAK.
func (q *qp) lengthFits(pk *packet) bool {
	info, ok := infoOf(pk.Opcode)
	switch {
	case !ok:
		return true
	case info.payload == 1:
		return len(pk.Payload) == q.pmtu
	case info.payload == 2:
		return len(pk.Payload) <= q.pmtu
	}
	return true
}

func (q *qp) onSend(pk *packet) {
	op := pk.Opcode
	starts := op == verbs.OpSendFirst || op == verbs.OpSendOnly || op == verbs.OpSendOnlyWithImm
	if starts != (q.rcur.kind == respNone) || (!starts && q.rcur.kind != respSend) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if starts && !q.startRecv(pk.PSN) {
		return
	}
	n := len(pk.Payload)
	if q.rcur.off+n > q.rcur.limit {
		// A SEND larger than the RECV: most hardware says local length
		// error and NAKs an invalid request. rxe on 6.1 does as for an
		// unwritable buffer: copy_data returns -EINVAL, not -ENOSPC, so
		// send_data_in gives ERR_MALFORMED_WQE. Measured: TestRxeRecvTooSmall.
		q.recvMalformed(pk.PSN)
		return
	}
	writeSegs(q.rcur.segs, q.rcur.off, pk.Payload)
	q.rcur.off += n
	q.rqPSN = psnAdd(q.rqPSN, 1)
	if op == verbs.OpSendLast || op == verbs.OpSendLastWithImm || op == verbs.OpSendOnly || op == verbs.OpSendOnlyWithImm {
		r := q.popRecv()
		q.msn++
		q.count(cntRDMARecvs)
		wc := verbs.WC{WRID: r.wrID, Status: verbs.WCSuccess, Opcode: verbs.WCRecv, ByteLen: uint32(q.rcur.off)}
		if pk.HasImm {
			wc.HasImm, wc.ImmData = true, pk.Imm
		}
		q.rcur = respOp{}
		q.completeRecv(wc)
	}
	if pk.AckReq && q.state != verbs.QPSErr {
		q.sendAck(pk.PSN, verbs.SyndromeACK)
	}
}

// startRecv takes the RECV at the head of the queue for the SEND starting
// at psn and checks that its buffer may be written. It reports whether the
// SEND goes on: without a RECV it is RNR NAKed, with an unwritable buffer
// (a bad lkey, an MR without LOCAL_WRITE, an SGE outside its MR) it fails.
func (q *qp) startRecv(psn uint32) bool {
	if !q.hasRecv() {
		q.rnrNAK(psn)
		return false
	}
	var segs []memSeg
	total := 0
	for _, s := range q.headRecv().sges {
		if s.Length == 0 {
			continue
		}
		seg, ok := q.dev.checkRecvRange(s.LKey, s.Addr, uint64(s.Length), q.pd)
		if !ok {
			// Most hardware says local protection error; rxe's copy_data
			// fails the lkey lookup or the range check (send_data_in).
			q.recvMalformed(psn)
			return false
		}
		segs = append(segs, seg)
		total += seg.n
	}
	q.rcur = respOp{kind: respSend, segs: segs, limit: total}
	return true
}

// recvMalformed is rxe's ERR_MALFORMED_WQE for the RECV at the head of the
// queue, a class A error (rxe_resp.c rxe_responder): the RECV completes
// with local QP operation error, the SEND at psn is NAKed as a remote
// operation error, and the QP goes to ERR.
func (q *qp) recvMalformed(psn uint32) {
	r := q.popRecv()
	q.completeRecv(verbs.WC{WRID: r.wrID, Status: verbs.WCLocQPOpErr, Opcode: verbs.WCRecv})
	q.nakFatal(psn, verbs.SyndromeNAKRemOpErr)
}

func (q *qp) onWrite(pk *packet) {
	op := pk.Opcode
	starts := pk.HasRETH
	last := op == verbs.OpRDMAWriteLast || op == verbs.OpRDMAWriteLastWithImm || op == verbs.OpRDMAWriteOnly || op == verbs.OpRDMAWriteOnlyWithImm
	if starts != (q.rcur.kind == respNone) || (!starts && q.rcur.kind != respWrite) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	// WRITE_WITH_IMM consumes a RECV on its last packet; without one the
	// responder answers RNR NAK before touching memory for that packet.
	if pk.HasImm && !q.hasRecv() {
		q.rnrNAK(pk.PSN)
		return
	}
	if starts && q.access&verbs.AccessRemoteWrite == 0 {
		// rxe's check_op_valid: the QP does not allow remote writes.
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if starts {
		var seg memSeg
		if pk.RETH.DMALen > 0 {
			var ok bool
			seg, ok = q.dev.checkRange(pk.RETH.RKey, pk.RETH.VA, uint64(pk.RETH.DMALen), q.pd, verbs.AccessRemoteWrite)
			if !ok {
				q.nakFatal(pk.PSN, verbs.SyndromeNAKRemAccess)
				return
			}
		}
		q.rcur = respOp{kind: respWrite, segs: []memSeg{seg}, limit: int(pk.RETH.DMALen)}
	}
	n := len(pk.Payload)
	if q.rcur.off+n > q.rcur.limit || (last && q.rcur.off+n != q.rcur.limit) {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if n > 0 {
		writeSegs(q.rcur.segs, q.rcur.off, pk.Payload)
	}
	q.rcur.off += n
	q.rqPSN = psnAdd(q.rqPSN, 1)
	if last {
		q.msn++
		q.count(cntRDMARecvs)
		total := q.rcur.off
		q.rcur = respOp{}
		if pk.HasImm {
			r := q.popRecv()
			q.completeRecv(verbs.WC{WRID: r.wrID, Status: verbs.WCSuccess, Opcode: verbs.WCRecvRDMAWithImm, ByteLen: uint32(total), HasImm: true, ImmData: pk.Imm})
		}
	}
	if pk.AckReq && q.state != verbs.QPSErr {
		q.sendAck(pk.PSN, verbs.SyndromeACK)
	}
}

func (q *qp) onRead(pk *packet) {
	if q.rcur.kind != respNone {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	if q.access&verbs.AccessRemoteRead == 0 {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	n := int(pk.RETH.DMALen)
	var seg memSeg
	if n > 0 {
		var ok bool
		seg, ok = q.dev.checkRange(pk.RETH.RKey, pk.RETH.VA, uint64(n), q.pd, verbs.AccessRemoteRead)
		if !ok {
			q.nakFatal(pk.PSN, verbs.SyndromeNAKRemAccess)
			return
		}
	}
	q.msn++
	q.count(cntRDMARecvs)
	npkts := max(1, (n+q.pmtu-1)/q.pmtu)
	q.keepResource(rdResource{firstPSN: pk.PSN, npkts: npkts, reth: pk.RETH, msn: q.msn})
	q.sendReadResponses(pk.PSN, seg, n, true, false)
	q.rqPSN = psnAdd(q.rqPSN, npkts)
}

// sendReadResponses sends n bytes of seg as READ responses from psn on.
// fresh is a response from the READ's first PSN (FIRST or ONLY); a replay
// from later in the READ starts with MIDDLE or LAST (rxe_resp.c
// read_reply, rdatm_res_state_replay). again marks them as answers to a
// duplicate request: the trace and the timeline show them as sent again.
func (q *qp) sendReadResponses(psn uint32, seg memSeg, n int, fresh, again bool) {
	if q.conn == nil {
		return
	}
	npkts := max(1, (n+q.pmtu-1)/q.pmtu)
	for i := range npkts {
		first, last := i == 0 && fresh, i == npkts-1
		op := verbs.OpRDMAReadRespMiddle
		switch {
		case first && last:
			op = verbs.OpRDMAReadRespOnly
		case first:
			op = verbs.OpRDMAReadRespFirst
		case last:
			op = verbs.OpRDMAReadRespLast
		}
		rp := &packet{Opcode: op, DestQP: q.destQPN, PSN: psnAdd(psn, i)}
		if first || last {
			rp.HasAETH, rp.AETH = true, verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: q.msn & 0xFFFFFF}
		}
		if k := min(q.pmtu, n-i*q.pmtu); k > 0 {
			rp.setPayload([]memSeg{seg}, i*q.pmtu, k)
		}
		q.conn.send(outItem{srcQP: q.num, pkt: rp, again: again})
	}
}

// PostRecv is ibv_post_recv.
func (q *qp) PostRecv(wr verbs.RecvWR) error {
	const fn = "ibv_post_recv"
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.destroyed {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x destroyed", q.num)
	}
	if q.state == verbs.QPSReset {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x is in state %s", q.num, q.state.CName())
	}
	if q.srq != nil {
		return verbs.Errorf(fn, errEINVAL, "QP 0x%x takes its RECVs from an SRQ: post them with ibv_post_srq_recv", q.num)
	}
	if len(wr.SGList) > int(q.cap.MaxRecvSGE) {
		return verbs.Errorf(fn, errEINVAL, "num_sge %d exceeds max_recv_sge %d", len(wr.SGList), q.cap.MaxRecvSGE)
	}
	// In ERR the RECV is queued and not flushed yet: rxe's library only
	// writes it into the queue it shares with the kernel, with no system
	// call (rdma-core providers/rxe/rxe.c rxe_post_recv), and only the
	// kernel's responder flushes it, the next time it runs: at the next
	// ibv_modify_qp to ERR, which rdma_disconnect makes too (moveToErr).
	// Measured on rxe: TestRxeRecvWithoutLocalWrite.
	if len(q.rq) >= int(q.cap.MaxRecvWR) {
		return verbs.Errorf(fn, errENOMEM, "receive queue full: %d RECVs posted (max_recv_wr %d)", len(q.rq), q.cap.MaxRecvWR)
	}
	q.rq = append(q.rq, recvWQE{wrID: wr.WRID, sges: append([]verbs.SGE(nil), wr.SGList...)})
	return nil
}
