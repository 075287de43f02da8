package sim

// The responder's resources: what it keeps of the READs and atomics it
// executed, so that a request the requester sends again (its response
// was lost) is answered again instead of executed twice (rxe_resp.c
// duplicate_request, find_resource).

import "github.com/rdmatour/rdmatour/verbs"

// rdResource is one executed READ or atomic (rxe's struct resp_res).
type rdResource struct {
	firstPSN uint32
	npkts    int
	atomic   bool
	reth     verbs.RETH // READ: what it asked for
	orig     uint64     // atomic: the value the target held, sent back again
	msn      uint32
}

// keepResource remembers r, keeping at most max_dest_rd_atomic of them
// (rxe's ring of qp->attr.max_dest_rd_atomic resources; at least one).
func (q *qp) keepResource(r rdResource) {
	limit := max(1, int(q.maxDestRdAtomic))
	if len(q.resources) >= limit {
		q.resources = append(q.resources[:0], q.resources[len(q.resources)-limit+1:]...)
	}
	q.resources = append(q.resources, r)
}

// findResource is the kept READ or atomic whose PSNs hold psn.
func (q *qp) findResource(psn uint32) *rdResource {
	for i := range q.resources {
		r := &q.resources[i]
		if d := psnDiff(psn, r.firstPSN); d >= 0 && d < r.npkts {
			return r
		}
	}
	return nil
}

// replayDuplicate answers a READ or atomic request seen before. A READ is
// read again from memory from the PSN asked for, if it asks for the same
// rkey and a part of what the original asked for; an atomic gets its
// saved ATOMIC_ACKNOWLEDGE again and is not executed twice. Anything else
// is dropped (rxe: a class D error, RESPST_CLEANUP). q.mu must be held.
func (q *qp) replayDuplicate(pk *packet) {
	r := q.findResource(pk.PSN)
	if r == nil || q.conn == nil {
		return
	}
	if r.atomic {
		q.conn.send(outItem{srcQP: q.num, pkt: &packet{
			Opcode: verbs.OpAtomicAcknowledge, DestQP: q.destQPN, PSN: r.firstPSN,
			HasAETH: true, AETH: verbs.AETH{Syndrome: verbs.SyndromeACK, MSN: r.msn & 0xFFFFFF},
			HasAtomicAck: true, AtomicAck: r.orig,
		}})
		return
	}
	if pk.Opcode != verbs.OpRDMAReadRequest {
		return
	}
	got, was := pk.RETH, r.reth
	if got.RKey != was.RKey || got.VA < was.VA || got.VA+uint64(got.DMALen) > was.VA+uint64(was.DMALen) {
		return
	}
	var seg memSeg
	if got.DMALen > 0 {
		var ok bool
		if seg, ok = q.dev.checkRange(got.RKey, got.VA, uint64(got.DMALen), q.pd, verbs.AccessRemoteRead); !ok {
			return
		}
	}
	q.sendReadResponses(pk.PSN, seg, int(got.DMALen), pk.PSN == r.firstPSN, true)
}
