package sim

// Completions and the error state: how a QP's work requests complete,
// and how everything outstanding is flushed when it goes to ERR.

import "github.com/rdmatour/rdmatour/verbs"

// completeSend posts a send completion. A full CQ loses it and the QP
// carries on in RTS: rxe's completer ignores rxe_cq_post's failure
// (rxe_comp.c do_complete; measured: TestRxeSendCQOverflow).
func (q *qp) completeSend(wc verbs.WC) {
	wc.QPNum, wc.SrcQP = q.num, q.destQPN
	q.scq.pushMarked(wc, q.sendMark())
}

// completeRecv posts a receive completion. A full CQ loses it and puts the
// QP in error, with no ACK for the request: rxe's responder turns
// rxe_cq_post's failure into RESPST_ERR_CQ_OVERFLOW, a class G error
// (rxe_resp.c do_complete, rxe_responder; measured: TestRxeRecvCQOverflow).
func (q *qp) completeRecv(wc verbs.WC) {
	wc.QPNum, wc.SrcQP = q.num, q.destQPN
	if !q.rcq.push(wc) && q.state != verbs.QPSErr {
		q.moveToErr()
	}
}

// moveToErr is modify_qp(IBV_QPS_ERR): every outstanding WR completes
// with IBV_WC_WR_FLUSH_ERR. On a QP already in ERR it flushes the RECVs
// posted since: rxe's rxe_qp_error runs the responder again, and only the
// responder flushes the receive queue (rxe_resp.c check_resource).
func (q *qp) moveToErr() {
	if q.destroyed {
		return
	}
	if q.state == verbs.QPSErr {
		q.flushRecvs()
		return
	}
	q.state = verbs.QPSErr
	q.halted = false
	q.gen++
	q.stopRNRTimer(q.dev.p)
	q.stopAckTimer(q.dev.p)
	q.sendIdx, q.rcur = 0, respOp{}
	// One WR off the queue at a time: each flushed completion frees the
	// strict profile's slots up to its own WR (sendMark).
	for len(q.sq) > 0 {
		w := q.sq[0]
		q.sq = q.sq[1:]
		q.completeSend(verbs.WC{WRID: w.wr.WRID, Status: verbs.WCWRFlushErr, Opcode: w.wr.Opcode.CompletionOpcode()})
	}
	q.flushRecvs()
	for _, wr := range q.early {
		q.completeSend(verbs.WC{WRID: wr.WRID, Status: verbs.WCWRFlushErr, Opcode: wr.Opcode.CompletionOpcode()})
	}
	q.early = nil
}

// toErr is moveToErr for a caller that does not hold q.mu.
func (q *qp) toErr() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveToErr()
}

// flushRecvs completes every posted RECV with IBV_WC_WR_FLUSH_ERR.
func (q *qp) flushRecvs() {
	rq := q.rq
	q.rq = nil
	if q.srqHeld != nil { // the SEND in progress had taken it from the SRQ
		rq, q.srqHeld = append(rq, *q.srqHeld), nil
	}
	for _, r := range rq {
		q.completeRecv(verbs.WC{WRID: r.wrID, Status: verbs.WCWRFlushErr, Opcode: verbs.WCRecv})
	}
}

// errorOut completes w with status (errors always complete, signaled or
// not), flushes everything else and puts the QP in error.
func (q *qp) errorOut(w *sendWQE, status verbs.WCStatus) {
	for i, x := range q.sq {
		if x == w {
			q.sq = append(q.sq[:i:i], q.sq[i+1:]...)
			if i < q.sendIdx {
				q.sendIdx--
			}
			q.completeSend(verbs.WC{WRID: w.wr.WRID, Status: status, Opcode: w.wr.Opcode.CompletionOpcode(), ByteLen: uint32(w.length)})
			break
		}
	}
	// No send_err: rxe counts it only when handing a packet to the
	// network fails (rxe_net.c rxe_xmit_packet), never for a WR that
	// completes in error; between two guests a WRITE that ran out of
	// retries moved completer_retry_err and retry_exceeded_err only.
	q.moveToErr()
}
