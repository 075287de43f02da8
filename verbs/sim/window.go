package sim

// The requester's window: rxe sends no packet whose PSN is more than
// RXE_MAX_UNACKED_PSNS (128) past the oldest one not acknowledged
// (rxe_req.c rxe_requester: "psn_compare(qp->req.psn, (qp->comp.psn +
// RXE_MAX_UNACKED_PSNS)) > 0" sets wait_psn and stops; the completer
// runs the requester again when an ACK, a READ response or a sequence
// NAK moves comp.psn, rxe_comp.c). A queue of 16 64 KiB WRITEs is so
// never more than two WRITEs and a packet on the wire, and a message of
// more than 129 packets waits, part sent, for the ACK its 66th packet
// asked for (msgrun.go reqAckEvery). Measured between two guests:
// scripts/qemu/rxe-window.sh (never more than 128 ahead of the ACKs, and
// 34-36 times exactly 128, in 3000 packets).
//
// Only with Options.RxeWindow. What it costs the sim, 2026-12-07,
// BenchmarkWriteTwoProcesses/64KiB (16 WRITEs queued): 27-28 µs a WRITE
// without the window, 65-92 with it, 57-59 with it and the responder's
// ACKs sent every 64 PSNs instead of at the end of its burst (ackDue);
// 4 KiB unchanged (16 WRITEs of 4 packets never fill it). The round trip
// of an ACK between two processes is two wake-ups, some 25 µs each on
// this machine, where rxe's, in the kernel, is a few µs.

// maxUnackedPSNs is rxe_param.h's RXE_MAX_UNACKED_PSNS.
const maxUnackedPSNs = 128

// windowBase is rxe's comp.psn: the oldest PSN not acknowledged, the
// head WQE's first (a READ's first response not yet received) unless an
// ACK or a NAK already moved past it.
func (q *qp) windowBase() uint32 {
	if len(q.sq) == 0 {
		return q.sqPSN
	}
	w := q.sq[0]
	base := psnAdd(w.firstPSN, w.respPkts)
	if q.compValid && psnDiff(q.compPSN, base) > 0 {
		base = q.compPSN
	}
	return base
}

// windowRoom is how many packets from psn on the window lets out now:
// no limit unless Options.RxeWindow.
func (q *qp) windowRoom(psn uint32) int {
	if !q.dev.p.opts.RxeWindow {
		return 1 << 30
	}
	return max(0, maxUnackedPSNs+1-psnDiff(psn, q.windowBase()))
}

// sendMore transmits what the window lets out of w's packets not sent
// yet, and reports whether all of them now are. A READ or an atomic is
// one request packet, sent if its first PSN is in the window.
func (q *qp) sendMore(w *sendWQE) bool {
	end := w.sendEnd()
	if w.wr.Opcode.ReadsRemote() || w.wr.Opcode.IsAtomic() {
		if q.windowRoom(w.firstPSN) == 0 {
			return false
		}
		q.transmit(w, 0, end, false)
		w.sent = end
		return true
	}
	to := min(end, w.sent+q.windowRoom(psnAdd(w.firstPSN, w.sent)))
	if to > w.sent {
		q.transmit(w, w.sent, to, false)
		w.sent = to
	}
	return w.sent == end
}

// partlySent is the WQE the window stopped in the middle, if any: only
// the last one transmitted can be.
func (q *qp) partlySent() *sendWQE {
	if q.sendIdx == 0 {
		return nil
	}
	if w := q.sq[q.sendIdx-1]; w.sent < w.sendEnd() {
		return w
	}
	return nil
}
