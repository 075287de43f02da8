package sim

import (
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// The requester's local ACK timeout and transport retries, as rxe's
// completer runs them (rxe_comp.c rxe_completer, COMPST_ERROR_RETRY).
//
// Over TCP nothing is lost, so while the peer's QP answers, every packet
// that asks for an ACK gets one, and a timer could only fire spuriously
// (a loaded machine can delay an ACK past a short timeout). The timer therefore
// runs only once packets may go missing: this side or the peer impairs
// the wire (--wire, faults.go), the peer's DREQ arrived (rdma_disconnect
// moved its QP to ERR, and an RNIC drops requests to a QP in ERR or to one
// destroyed), or its connection broke (the process is gone). From then on
// it behaves as rxe's retransmit timer: each local ACK timeout without
// progress resends from the oldest unacknowledged PSN, an ACK that
// completes something refills the retry budget, and after retry_cnt
// retransmissions the WR at the head completes with IBV_WC_RETRY_EXC_ERR
// and the QP goes to ERR; a retry_cnt of 7 retransmits forever, as on
// rxe. A peer whose QP still answers after its DREQ (a manual-track QP it
// left in RTS) still acks, and nothing fails.
//
// A PSN sequence error NAK and an ACK timeout draw on the same budget
// (rxe's comp.retry_cnt): each retry counts completer_retry_err
// (RXE_CNT_COMP_RETRY), the last failure retry_exceeded_err. Once a retry
// has started, a further NAK starts none until an ACK completes
// something; only a timeout does (rxe's comp.started_retry).

// peerLost tells the QP that its peer may no longer answer. Nothing
// changes until something is in flight.
func (q *qp) peerLost() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.state == verbs.QPSErr || q.destroyed || q.ackWatch {
		return
	}
	q.retriesLeft = int(q.retryCnt)
	q.watchAcks()
}

// watchAcks starts the local ACK timer's watch: from now on a packet
// that goes unanswered is retransmitted. q.mu must be held.
func (q *qp) watchAcks() {
	if q.state == verbs.QPSErr || q.destroyed || q.ackWatch {
		return
	}
	q.ackWatch = true
	q.armAckTimer()
}

// rxeACKTimeout is the timeout code rdma_cm gives an RC QP on rxe under
// Linux 6.1: the REQ's Local ACK Timeout is 19 and the requester resends
// a lost WRITE every 2.23–2.31 s (scripts/wirefaults.sh between two
// guests under TCG, 2026-12-02; 4.096 µs × 2^19 = 2.15 s, plus a jiffy
// or two). rdma_cm's RoCE path has a packet life time of 18
// (cma.c CMA_IBOE_PACKET_LIFETIME) and cm_ack_timeout(15, 18) is 19,
// 15 being rxe's local_ca_ack_delay (cm.c cm_rep_handler). Newer kernels
// give 17 (0.54 s).
const rxeACKTimeout = 19

// rxeJiffy is the floor rxe puts under the local ACK timeout: it keeps
// the timeout in jiffies and makes a 0 one jiffy (rxe_qp.c
// rxe_qp_from_attr: "qp->qp_timeout_jiffies = j ? j : 1"). A jiffy is
// 1/HZ: 4 ms with HZ=250, what Debian's kernels use; not measured in the
// guest (its TCG clock makes sub-10 ms timers unreliable anyway).
const rxeJiffy = 4 * time.Millisecond

// ackTimeout is the local ACK timeout of the QP's timeout code, 4.096 µs
// × 2^timeout with rxe's floor of one jiffy; 0 when the code is 0, which
// rxe reads as "no retransmit timer" (the QP waits for ever).
func (a *qpAttrs) ackTimeout() time.Duration {
	if a.timeout == 0 {
		return 0
	}
	return max(time.Duration(4096<<min(a.timeout, 31))*time.Nanosecond, rxeJiffy)
}

// armAckTimer starts the ACK timer if it is watched, not running and
// something transmitted waits for its acknowledgement.
func (q *qp) armAckTimer() {
	if !q.ackWatch || q.ackTimer != nil || q.sendIdx == 0 || q.state != verbs.QPSRTS {
		return
	}
	d := q.ackTimeout()
	if d == 0 {
		return
	}
	gen := q.gen
	q.ackTimer = q.dev.p.afterFunc(d, func() { q.ackTimedOut(gen) })
}

// ackProgress is called when an acknowledgement completed something: the
// retry budget is full again (rxe's reset_retry_counters) and the timer
// starts over for what remains.
func (q *qp) ackProgress() {
	q.retriesLeft = int(q.retryCnt)
	q.startedRetry = false
	if !q.ackWatch {
		return
	}
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
	// A timeout ends an RNR wait too: resend from the oldest unacked PSN.
	q.halted = false
	q.gen++
	q.stopRNRTimer(q.dev.p)
	if q.errorRetry(q.sq[0], true) {
		q.armAckTimer()
	}
}

// errorRetry is rxe's COMPST_ERROR_RETRY for w, the WR at the head, after
// a timeout or a PSN sequence error NAK: resend from the oldest
// unacknowledged PSN while retry_cnt allows (7 never counts down: "if
// (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--"; in the spec 7 means
// seven), else fail w with IBV_WC_RETRY_EXC_ERR. It reports whether the
// QP is still sending. q.mu must be held.
func (q *qp) errorRetry(w *sendWQE, timeout bool) bool {
	if q.startedRetry && !timeout {
		return true
	}
	if q.retriesLeft <= 0 {
		q.count(cntRetryExceeded)
		q.errorOut(w, verbs.WCRetryExcErr)
		return false
	}
	if q.retryCnt != 7 {
		q.retriesLeft--
	}
	q.count(cntCompleterRetryErr)
	q.startedRetry = true
	q.resendFrom(q.unackedPSN(w))
	return true
}

// unackedPSN is where a retry of w starts: the PSN a sequence NAK named
// (rxe's comp.psn) when it falls inside w, else the first response a READ
// still lacks, else w's first PSN.
func (q *qp) unackedPSN(w *sendWQE) uint32 {
	if d := psnDiff(q.compPSN, w.firstPSN); q.compValid && d >= 0 && d < w.npkts {
		return q.compPSN
	}
	return psnAdd(w.firstPSN, w.respPkts)
}
