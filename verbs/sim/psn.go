package sim

import "github.com/rdmatour/rdmatour/verbs"

// PSN checks, as rxe does them (rxe_resp.c check_psn and
// duplicate_request; rxe_comp.c on AETH_NAK_PSN_SEQ_ERROR).

// inSequence is the responder's PSN check. A request ahead of the
// expected PSN gets one PSN sequence error NAK carrying the expected PSN
// (then nothing until the gap closes) and is dropped; a duplicate (an
// older PSN) of a SEND or WRITE is acknowledged again with the last PSN
// executed and not executed again. A duplicate READ or atomic request is
// dropped: rxe replays the response from its saved responder resource,
// which the sim does not keep. q.mu must be held.
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
		}
		return false
	}
	q.sentSeqNAK = false
	return true
}

// onSeqNAK is the requester's answer to a PSN sequence error NAK for psn
// in w: the packets before psn arrived (the NAK acked them), so resend from
// psn. Each such retry uses up one of retry_cnt (7 means forever, as in
// rxe's completer and as after an ACK timeout, ackTimedOut); past it, w
// completes with IBV_WC_RETRY_EXC_ERR. While an RNR NAK holds the send queue the
// NAK is only the responder noticing the packets behind the RNR'd one:
// the RNR timer resends them anyway. q.mu must be held.
func (q *qp) onSeqNAK(w *sendWQE, psn uint32) {
	if q.halted {
		return
	}
	q.count(cntRcvdSeqErr)
	w.seqTries++
	if q.retryCnt != 7 && w.seqTries > int(q.retryCnt) {
		q.count(cntRetryExceeded)
		q.errorOut(w, verbs.WCRetryExcErr)
		return
	}
	q.count(cntCompleterRetryErr)
	q.resendFrom(psn)
}

// psnAdd and psnDiff do 24-bit PSN arithmetic.
func psnAdd(a uint32, n int) uint32 { return (a + uint32(n)) & 0xFFFFFF }

// psnDiff is a-b as a signed 24-bit distance.
func psnDiff(a, b uint32) int { return int(int32((a-b)<<8) >> 8) }
