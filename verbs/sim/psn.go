package sim

import "github.com/rdmatour/rdmatour/verbs"

// PSN checks, as rxe does them (rxe_resp.c check_psn and
// duplicate_request; rxe_comp.c on AETH_NAK_PSN_SEQ_ERROR).

// inSequence is the responder's PSN check. A request ahead of the
// expected PSN gets one PSN sequence error NAK carrying the expected PSN
// (then nothing until the gap closes) and is dropped; a duplicate (an
// older PSN) of a SEND or WRITE is acknowledged again with the last PSN
// executed and not executed again. A duplicate READ or atomic request is
// answered again from the responder's resources (replay.go). q.mu must
// be held.
func (q *qp) inSequence(pk *packet) bool {
	d := psnDiff(pk.PSN, q.rqPSN)
	switch {
	case d > 0:
		if !q.sentSeqNAK {
			q.sentSeqNAK = true
			q.count(cntOutOfSeqRequest)
			q.sendAck(q.rqPSN, verbs.SyndromeNAKPSNSeqErr)
		}
		return false
	case d < 0:
		q.count(cntDuplicateRequest)
		if !readsRemote(pk.Opcode) {
			// C9-105: ack again, whether or not AckReq is set.
			q.sendAck(psnAdd(q.rqPSN, -1), verbs.SyndromeACK)
		} else {
			q.replayDuplicate(pk)
		}
		return false
	}
	q.sentSeqNAK = false
	return true
}

// onSeqNAK is the requester's answer to a PSN sequence error NAK for psn
// in w: the packets before psn arrived (the NAK acked them), so resend from
// psn (rxe_comp.c check_ack, AETH_NAK_PSN_SEQ_ERROR: "a nak implicitly
// acks all packets with psns before", then COMPST_ERROR_RETRY; see
// errorRetry for the budget). While an RNR NAK holds the send queue the
// NAK is only the responder noticing the packets behind the RNR'd one:
// the RNR timer resends them anyway. q.mu must be held.
func (q *qp) onSeqNAK(w *sendWQE, psn uint32) {
	if q.halted {
		return
	}
	if !q.compValid || psnDiff(psn, q.compPSN) > 0 {
		q.count(cntRcvdSeqErr)
		q.compPSN, q.compValid = psn, true
	}
	q.errorRetry(w, false)
}

// onPlainACK is an ACK's word on the retry: an ACK past the oldest
// unacknowledged PSN moves it (rxe_comp.c COMPST_UPDATE_COMP: "qp->comp.psn
// = (pkt->psn + 1)") and refills the retry budget (check_ack, AETH_ACK:
// reset_retry_counters), even when it completes no WR yet (an ACK to a
// duplicate in the middle of a WRITE). q.mu must be held.
func (q *qp) onPlainACK(psn uint32) {
	next := psnAdd(psn, 1)
	if q.compValid && psnDiff(next, q.compPSN) <= 0 {
		return
	}
	q.compPSN, q.compValid = next, true
	q.retriesLeft = int(q.retryCnt)
	q.startedRetry = false
}

// psnAdd and psnDiff do 24-bit PSN arithmetic.
func psnAdd(a uint32, n int) uint32 { return (a + uint32(n)) & 0xFFFFFF }

// psnDiff is a-b as a signed 24-bit distance.
func psnDiff(a, b uint32) int { return int(int32((a-b)<<8) >> 8) }
