package sim

import "github.com/rdmatour/rdmatour/verbs"

// A send WR whose local memory ends partway: rxe checks the local SGE
// only as it copies each packet's payload (rxe_req.c rxe_requester →
// finish_packet → copy_data, rxe_mr.c: mr_check_range on the bytes of
// that packet), so the packets before the bad bytes go out first, and
// only the packet that reaches past the MR fails with
// IBV_WC_LOC_PROT_ERR. Meanwhile the responder checks the whole RETH
// range on the first packet (rxe_resp.c check_rkey: mr_check_range(mr,
// va, resid) with resid the RETH's length) and NAKs a WRITE that does
// not fit its MR. On one device rxe's loopback runs the responder, and
// the completer on its NAK, inside the requester's transmit of that
// first packet (rxe_net.c rxe_loopback → rxe_rcv; rxe_resp_queue_pkt
// runs the task at once when its queue was empty), so the NAK's remote
// access error ends the WR before the bad packet is built (measured:
// client:post-write.length=4097, TestEditTableOnRealVerbs). The sim's
// peer is across TCP: it gets that answer by asking for an ACK on the
// last good packet, and fails the WR locally only once that packet is
// acknowledged without a NAK.

// gatherLocal resolves w's SGEs against this device's MRs: w.segs and
// w.length are what can be copied, up to the first SGE that fails the
// check (its usable start included), and w.failed says whether one did.
func (q *qp) gatherLocal(w *sendWQE) {
	need := verbs.Access(0)
	if w.wr.Opcode.ReadsRemote() {
		need = verbs.AccessLocalWrite // the NIC writes the response locally
	}
	for _, s := range w.wr.SGList {
		if s.Length == 0 {
			continue
		}
		seg, ok := q.dev.checkRange(s.LKey, s.Addr, uint64(s.Length), q.pd, need)
		if !ok {
			if pre, ok := q.dev.partialPrefix(s.LKey, s.Addr, uint64(s.Length), q.pd, need); ok {
				w.segs, w.length = append(w.segs, pre), w.length+pre.n
			}
			w.failed = verbs.WCLocProtErr
			if q.dev.lookupMR(s.LKey, false) == nil {
				// No MR has this lkey: rxe's copy_data gets NULL from
				// lookup_mr and returns -EINVAL, which the requester
				// reports as IB_WC_LOC_QP_OP_ERR; a range or access
				// failure is -EFAULT, IB_WC_LOC_PROT_ERR (rxe_req.c
				// rxe_requester). Measured: TestRxeLocalSGEErrors.
				w.failed = verbs.WCLocQPOpErr
			}
			return
		}
		w.segs = append(w.segs, seg)
		w.length += seg.n
	}
}

// partialPrefix is the part of an SGE that rxe's copy_data could still
// copy: the key, PD and access are right, the range runs past the MR's
// end. ok is false when nothing of it is usable.
func (d *device) partialPrefix(key uint32, va, n uint64, p *pd, need verbs.Access) (memSeg, bool) {
	m := d.lookupMR(key, remoteAccess(need))
	if m == nil || m.pd != p || m.access&need != need || va < m.addr {
		return memSeg{}, false
	}
	size := uint64(len(m.buf))
	if va-m.addr >= size {
		return memSeg{}, false
	}
	return d.checkRange(key, va, min(n, size-(va-m.addr)), p, need)
}

// deferLocalFault turns w's local protection error into a late one when
// at least its first packet's bytes are good (see above): the good
// packets are sent, the WR keeps its whole length (the RETH says what
// the learner asked for), and the error waits for the ACK of the last
// good packet. total is the WR's length.
func (q *qp) deferLocalFault(w *sendWQE, total int) {
	if w.failed != verbs.WCLocProtErr || w.wr.Opcode.ReadsRemote() || w.wr.Opcode.IsAtomic() || w.length < q.pmtu {
		return
	}
	w.goodPkts = w.length / q.pmtu
	w.failed, w.length = verbs.WCSuccess, total
}

// sendEnd is where w's transmission stops: all its packets, or the good
// ones before a late local fault.
func (w *sendWQE) sendEnd() int {
	if w.goodPkts > 0 {
		return min(w.npkts, w.goodPkts)
	}
	return w.npkts
}

// lateFaultAcked reports, and completes, a WR whose good packets an
// ACK through psn acknowledged: its next packet would have failed.
func (q *qp) lateFaultAcked(w *sendWQE, psn uint32) bool {
	if w.goodPkts == 0 || psnDiff(psn, psnAdd(w.firstPSN, w.goodPkts-1)) < 0 {
		return false
	}
	q.errorOut(w, verbs.WCLocProtErr)
	return true
}
