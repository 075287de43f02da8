package sim

import (
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The requester's local ACK timeout and transport retries.
//
// Over TCP nothing is lost, so while the peer's QP answers, every packet
// that asks for an ACK gets one, and a timer could only fire spuriously
// (a loaded machine delays an ACK past 67 ms easily). The timer therefore
// runs only once the peer may have stopped answering: its DREQ arrived
// (rdma_disconnect moved its QP to ERR, and an RNIC drops requests to a QP
// in ERR or to one destroyed), or its connection broke (the process is
// gone). From then on it behaves as rxe's retransmit timer: each local ACK
// timeout (4.096 µs * 2^timeout) without progress resends from the oldest
// unacknowledged PSN, an ACK that completes something refills the retry
// budget, and after retry_cnt retransmissions the WR at the head completes
// with IBV_WC_RETRY_EXC_ERR and the QP goes to ERR; a retry_cnt of 7
// retransmits forever, as on rxe. A peer whose QP still
// answers after its DREQ (a manual-track QP it left in RTS) still acks,
// and nothing fails.

// peerLost tells the QP that its peer may no longer answer. Nothing
// changes until something is in flight.
func (q *qp) peerLost() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state == verbs.QPSErr || q.destroyed || q.ackWatch {
		return
	}
	q.ackWatch = true
	q.retriesLeft = int(q.retryCnt)
	q.armAckTimer()
}

// ackTimeout is the local ACK timeout of the QP's timeout code.
func (a *qpAttrs) ackTimeout() time.Duration {
	return time.Duration(4096<<min(a.timeout, 31)) * time.Nanosecond
}

// armAckTimer starts the ACK timer if it is watched, not running and
// something transmitted waits for its acknowledgement.
func (q *qp) armAckTimer() {
	if !q.ackWatch || q.ackTimer != nil || q.sendIdx == 0 || q.state != verbs.QPSRTS {
		return
	}
	gen := q.gen
	q.ackTimer = q.dev.p.afterFunc(q.ackTimeout(), func() { q.ackTimedOut(gen) })
}

// ackProgress is called when an acknowledgement completed something: the
// retry budget is full again and the timer starts over for what remains.
func (q *qp) ackProgress() {
	if !q.ackWatch {
		return
	}
	q.retriesLeft = int(q.retryCnt)
	q.stopAckTimer(q.dev.p)
	q.armAckTimer()
}

func (q *qp) ackTimedOut(gen int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ackTimer = nil
	if q.destroyed || q.gen != gen || q.state != verbs.QPSRTS || len(q.sq) == 0 || q.sendIdx == 0 {
		return
	}
	if q.retriesLeft <= 0 {
		q.count(cntRetryExceeded)
		q.count(cntCompleterRetryErr)
		q.errorOut(q.sq[0], verbs.WCRetryExcErr)
		return
	}
	// rxe's completer never counts a retry_cnt of 7 down, so 7 retries
	// forever (rxe_comp.c rxe_completer, COMPST_ERROR_RETRY: "if
	// (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--"), for an ACK timeout
	// as for a sequence NAK (onSeqNAK). In the spec 7 means seven.
	if q.retryCnt != 7 {
		q.retriesLeft--
	}
	// A timeout ends an RNR wait too: resend from the oldest unacked PSN.
	q.halted = false
	q.gen++
	q.stopRNRTimer(q.dev.p)
	w := q.sq[0]
	q.resendFrom(psnAdd(w.firstPSN, w.respPkts))
	q.armAckTimer()
}
