package sim

// Atomics (COMPARE_SWAP, FETCH_ADD) on both sides, and what READ and the
// atomics share: the responder resources they use, the rdma_cm
// negotiation that sets them, and the checks rxe makes.

import (
	"encoding/binary"

	"github.com/rdmatour/rdmatour/verbs"
)

// readsRemote says whether a request opcode makes the responder send data
// back (READ and the atomics): the requests that responder resources and
// the initiator depth limit.
func readsRemote(op uint8) bool {
	return op == verbs.OpRDMAReadRequest || op == verbs.OpCompareSwap || op == verbs.OpFetchAdd
}

// cmAccess is the qp_access_flags rdma_cm gives an RC QP when it brings it
// to RTR: ib_cm's cm_init_qp_init_attr grants REMOTE_READ and
// REMOTE_ATOMIC only when this side's responder resources, which are the
// initiator depth the peer asked for (REQ or REP), are not 0. Measured on
// rxe: a client that connects with initiator_depth 0 leaves the server's
// QP with IBV_ACCESS_REMOTE_WRITE alone, and its READ fails with
// IBV_WC_REM_INV_REQ_ERR.
func cmAccess(peerInitiatorDepth uint8) verbs.Access {
	a := verbs.AccessRemoteWrite
	if peerInitiatorDepth > 0 {
		a |= verbs.AccessRemoteRead | verbs.AccessRemoteAtomic
	}
	return a
}

// checkAtomicWR is rxe's provider check at ibv_post_send (validate_send_wr
// in rdma-core's providers/rxe): the target must be 8-byte aligned and the
// local buffer must hold the 8 bytes that come back. Measured: an
// unaligned FETCH_AND_ADD makes ibv_post_send return EINVAL and nothing
// goes on the wire; both QPs stay in RTS.
func checkAtomicWR(wr verbs.SendWR) error {
	const fn = "ibv_post_send"
	if wr.RemoteAddr&7 != 0 {
		return verbs.Errorf(fn, errEINVAL, "%s: remote_addr 0x%x is not 8-byte aligned", wr.Opcode, wr.RemoteAddr)
	}
	n := uint64(0)
	for _, s := range wr.SGList {
		n += uint64(s.Length)
	}
	if n < 8 {
		return verbs.Errorf(fn, errEINVAL, "%s: the local buffer has %d bytes; the old value needs 8", wr.Opcode, n)
	}
	return nil
}

// atomicPacket is the request packet of an atomic WR.
func (q *qp) atomicPacket(w *sendWQE) *packet {
	wr := &w.wr
	op := verbs.OpFetchAdd
	if wr.Opcode == verbs.WRAtomicCmpAndSwp {
		op = verbs.OpCompareSwap
	}
	a := verbs.AtomicETH{VA: wr.RemoteAddr, RKey: wr.RKey, SwapAdd: wr.CompareAdd}
	if op == verbs.OpCompareSwap {
		a.Compare, a.SwapAdd = wr.CompareAdd, wr.Swap
	}
	return &packet{Opcode: op, AckReq: true, DestQP: q.destQPN, PSN: w.firstPSN, HasAtomicETH: true, AtomicETH: a}
}

// onAtomic executes COMPARE_SWAP or FETCH_ADD on 8 bytes of an MR and
// answers with ATOMIC_ACKNOWLEDGE carrying the value found there. The
// checks and NAKs follow rxe's responder (check_op_valid, check_rkey).
func (q *qp) onAtomic(pk *packet) {
	if q.rcur.kind != respNone || q.access&verbs.AccessRemoteAtomic == 0 {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	a := pk.AtomicETH
	if a.VA&7 != 0 {
		// rxe: RESPST_ERR_MISALIGNED_ATOMIC, a NAK invalid request.
		q.nakFatal(pk.PSN, verbs.SyndromeNAKInvReq)
		return
	}
	seg, ok := q.dev.checkRange(a.RKey, a.VA, 8, q.pd, verbs.AccessRemoteAtomic)
	if !ok {
		q.nakFatal(pk.PSN, verbs.SyndromeNAKRemAccess)
		return
	}
	orig, _ := seg.atomic(pk.Opcode, a)
	q.msn++
	q.keepResource(rdResource{firstPSN: pk.PSN, npkts: 1, atomic: true, orig: orig, msn: q.msn})
	q.dev.count(cntRDMARecvs)
	q.rqPSN = psnAdd(q.rqPSN, 1)
	if q.conn != nil {
		q.conn.send(outItem{srcQP: q.num, pkt: &packet{
			Opcode: verbs.OpAtomicAcknowledge, DestQP: q.destQPN, PSN: pk.PSN,
			HasAETH: true, AETH: verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: q.msn & 0xFFFFFF},
			HasAtomicAck: true, AtomicAck: orig,
		}})
	}
}

// atomic runs the operation on the 8 bytes of s under the MR's lock (so
// no other access of the simulated NIC or of the CPU through MR.Write
// interleaves) and returns the value before it. The counter is in the
// responder's memory order: little-endian, as on the x86 and arm64 hosts
// rxe runs on.
func (s memSeg) atomic(op uint8, a verbs.AtomicETH) (uint64, bool) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if s.m.dead {
		return 0, false
	}
	b := s.m.buf[s.off : s.off+8]
	orig := binary.LittleEndian.Uint64(b)
	switch op {
	case verbs.OpFetchAdd:
		binary.LittleEndian.PutUint64(b, orig+a.SwapAdd)
	case verbs.OpCompareSwap:
		if orig == a.Compare {
			binary.LittleEndian.PutUint64(b, a.SwapAdd)
		}
	}
	return orig, true
}

// onAtomicAck completes the atomic at the head of the send queue: the
// original value lands in the WR's local buffer (host order, as rxe's
// completer writes it).
func (q *qp) onAtomicAck(pk *packet) {
	if len(q.sq) == 0 || q.sendIdx == 0 {
		return
	}
	q.ackThrough(psnAdd(pk.PSN, -1))
	if len(q.sq) == 0 || q.sendIdx == 0 || q.state != verbs.QPSRTS {
		return
	}
	w := q.sq[0]
	if !w.wr.Opcode.IsAtomic() || pk.PSN != w.firstPSN || !pk.HasAtomicAck {
		return // one already taken: rxe's completer drops it (check_psn)
	}
	var v [8]byte
	binary.LittleEndian.PutUint64(v[:], pk.AtomicAck)
	writeSegs(w.segs, 0, v[:])
	q.sq = q.sq[1:]
	q.sendIdx--
	q.ackProgress()
	if w.signaled {
		q.completeSend(verbs.WC{WRID: w.wr.WRID, Status: verbs.WCSuccess, Opcode: w.wr.Opcode.CompletionOpcode(), ByteLen: 8})
	}
	q.checkHeadFailed()
	q.pump()
}

// rdAtomicInFlight counts transmitted READs and atomics not yet answered:
// rxe's requester sends no more than max_rd_atomic of them at once (and
// none at all when it is 0: the WR waits).
func (q *qp) rdAtomicInFlight() int {
	n := 0
	for _, w := range q.sq[:q.sendIdx] {
		if w.wr.Opcode.ReadsRemote() {
			n++
		}
	}
	return n
}
