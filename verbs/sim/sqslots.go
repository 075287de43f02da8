package sim

// Send queue slots: when a posted WR's slot is free again, by profile.
//
//   - rxe: when the WR leaves the queue, signaled or not, polled or not:
//     rxe's completer advances the queue's consumer index for every WR it
//     retires (rxe_comp.c do_complete: queue_advance_consumer whether or
//     not a CQE is posted; measured: TestRxeSendQueueNeverSignaled). So
//     the slots in use are len(q.sq).
//   - strict, the spec's rule as mlx5 has it: a slot frees only when a
//     completion of its WR, or of a later WR on the same send queue, is
//     polled. rdma-core's providers/mlx5/cq.c (mlx5_poll_one, the
//     MLX5_CQE_REQ case) sets wq->tail = wq->wqe_head[idx] + 1 from the
//     polled CQE's wqe_counter, and mlx5_post_send refuses with ENOMEM
//     when mlx5_wq_overflow finds head - tail at max_post. The slots in
//     use are every WR posted since the last polled one's.

// sendSlots is a send queue's slot accounting in the strict profile.
// posted counts WRs taken into the queue; tail is one past the last WR
// whose completion was polled (mlx5's wq->head and wq->tail).
type sendSlots struct {
	posted, tail uint64
}

// slotMark rides with a send completion in its CQ: polling it frees
// q's slots up to seq, as mlx5 moves wq->tail when it polls a CQE.
type slotMark struct {
	q   *qp
	seq uint64 // one past the completed WR's place in the queue
}

// sqInUse is how many send queue slots are taken: what ibv_post_send
// holds against max_send_wr, and what ibv_query_qp's OutstandingSQ
// shows. Called with q.mu held.
func (q *qp) sqInUse() int {
	if q.dev.limits().SlotsFreedOnPoll {
		return int(q.slots.posted - q.slots.tail)
	}
	return len(q.sq)
}

// takeSlot counts a WR posted onto the send queue. Called with q.mu held.
func (q *qp) takeSlot() { q.slots.posted++ }

// sendMark is the mark for a send completion pushed now: every WR that
// has left q.sq is behind it (RC completes in order, and each caller of
// completeSend has taken its WR off q.sq first). Nil in the rxe profile,
// where slots free without a poll. Called with q.mu held.
func (q *qp) sendMark() *slotMark {
	if !q.dev.limits().SlotsFreedOnPoll {
		return nil
	}
	return &slotMark{q: q, seq: q.slots.posted - uint64(len(q.sq))}
}

// resetSlots frees every slot: RESET empties the queue (mlx5_init_qp_indices).
// Called with q.mu held.
func (q *qp) resetSlots() { q.slots.tail = q.slots.posted }

// reclaim frees m's QP's slots up to m.seq. Called without the CQ's lock:
// completeSend holds q.mu while it takes the CQ's.
func (m *slotMark) reclaim() {
	m.q.mu.Lock()
	defer m.q.mu.Unlock()
	m.q.slots.tail = max(m.q.slots.tail, m.seq)
}
