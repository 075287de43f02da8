package sim

import (
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// A shared receive queue, as rxe keeps one (rxe_srq.c, rxe_resp.c
// get_srq_wqe): the RC QPs created with it take the RECV at its head
// when a SEND (or a WRITE_WITH_IMM) arrives, in arrival order across all
// of them. The WQE's buffer is then checked against the PD of the QP the
// SEND came on, not the SRQ's: rxe's send_data_in calls copy_data with
// qp->pd. Taking a RECV that leaves fewer than the armed limit raises
// IBV_EVENT_SRQ_LIMIT_REACHED once and disarms (srq->limit = 0). A QP
// going to ERR flushes only its own queue: the SRQ's RECVs stay for the
// others.

type srq struct {
	dev *device
	pd  *pd

	mu     sync.Mutex
	attr   verbs.SRQAttr // MaxWR as granted; Limit 0 when not armed
	wqes   []recvWQE
	events int // IBV_EVENT_SRQ_LIMIT_REACHED raised so far
	refs   int // QPs using it: ibv_destroy_srq fails with EBUSY
	dead   bool
}

var _ verbs.SRQ = (*srq)(nil)

// CreateSRQ is ibv_create_srq. rxe_srq_chk_init: max_wr 1..max_srq_wr,
// max_sge 1..RXE_MAX_SGE; the queue is rounded up as a QP's is, and the
// limit is not armed ("irrelevant for ibv_create_srq", ibv_create_srq(3)).
func (p *pd) CreateSRQ(attr verbs.SRQAttr) (verbs.SRQ, error) {
	const fn = "ibv_create_srq"
	if attr.MaxWR < 1 || attr.MaxWR > maxQPWR {
		return nil, verbs.Errorf(fn, errEINVAL, "max_wr %d outside 1..%d", attr.MaxWR, maxQPWR)
	}
	if attr.MaxSGE < 1 || attr.MaxSGE > maxSGE {
		return nil, verbs.Errorf(fn, errEINVAL, "max_sge %d outside 1..%d", attr.MaxSGE, maxSGE)
	}
	p.mu.Lock()
	dead := p.dead
	p.mu.Unlock()
	if dead {
		return nil, verbs.Errorf(fn, errEINVAL, "PD %d deallocated", p.handle)
	}
	p.ref(1)
	attr.MaxWR, attr.Limit = rxeQueueDepth(attr.MaxWR), 0
	p.dev.p.count(func(r *verbs.ResourceCount) { r.SRQs++ })
	return &srq{dev: p.dev, pd: p, attr: attr}, nil
}

// PostRecv is ibv_post_srq_recv.
func (s *srq) PostRecv(wr verbs.RecvWR) error {
	const fn = "ibv_post_srq_recv"
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.dead:
		return verbs.Errorf(fn, errEINVAL, "SRQ destroyed")
	case len(wr.SGList) > int(s.attr.MaxSGE):
		return verbs.Errorf(fn, errEINVAL, "num_sge %d exceeds max_sge %d", len(wr.SGList), s.attr.MaxSGE)
	case len(s.wqes) >= int(s.attr.MaxWR):
		return verbs.Errorf(fn, errENOMEM, "SRQ full: %d RECVs posted (max_wr %d)", len(s.wqes), s.attr.MaxWR)
	}
	s.wqes = append(s.wqes, recvWQE{wrID: wr.WRID, sges: append([]verbs.SGE(nil), wr.SGList...)})
	return nil
}

// Query is ibv_query_srq.
func (s *srq) Query() (verbs.SRQAttr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return verbs.SRQAttr{}, verbs.Errorf("ibv_query_srq", errEINVAL, "SRQ destroyed")
	}
	return s.attr, nil
}

// Arm is ibv_modify_srq with IBV_SRQ_LIMIT (rxe_srq_chk_attr: the limit
// may not exceed the queue's size).
func (s *srq) Arm(limit uint32) error {
	const fn = "ibv_modify_srq"
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.dead:
		return verbs.Errorf(fn, errEINVAL, "SRQ destroyed")
	case limit > s.attr.MaxWR:
		return verbs.Errorf(fn, errEINVAL, "srq_limit %d exceeds max_wr %d", limit, s.attr.MaxWR)
	}
	s.attr.Limit = limit
	return nil
}

// LimitEvents is how many limit events have been raised.
func (s *srq) LimitEvents() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events, nil
}

// Destroy is ibv_destroy_srq.
func (s *srq) Destroy() error {
	const fn = "ibv_destroy_srq"
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.dead:
		return verbs.Errorf(fn, errEINVAL, "SRQ already destroyed")
	case s.refs > 0:
		return verbs.Errorf(fn, errEBUSY, "%d QPs still use the SRQ", s.refs)
	}
	s.dead, s.wqes = true, nil
	s.pd.ref(-1)
	s.dev.p.count(func(r *verbs.ResourceCount) { r.SRQs-- })
	return nil
}

// take pops the RECV at the SRQ's head (get_srq_wqe); false when it is
// empty (the SEND is RNR NAKed).
func (s *srq) take() (recvWQE, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.wqes) == 0 {
		return recvWQE{}, false
	}
	w := s.wqes[0]
	s.wqes = s.wqes[1:]
	if s.attr.Limit > 0 && uint32(len(s.wqes)) < s.attr.Limit {
		s.attr.Limit = 0
		s.events++
	}
	return w, true
}

// use counts a QP that uses the SRQ (delta 1 at create, -1 at destroy);
// nil for a QP with no SRQ.
func (s *srq) use(delta int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.refs += delta
	s.mu.Unlock()
}

// The responder's receive queue: the QP's own, or its SRQ's. With an
// SRQ the RECV is taken when a SEND starts (get_srq_wqe copies it into
// the QP's resp.srq_wqe), so the head is then the one held in rcur.

// hasRecv says a RECV is there for a SEND or WRITE_WITH_IMM to consume.
func (q *qp) hasRecv() bool {
	if q.srq == nil {
		return len(q.rq) > 0
	}
	if q.srqHeld != nil {
		return true
	}
	w, ok := q.srq.take()
	if ok {
		q.srqHeld = &w
	}
	return ok
}

// headRecv is the RECV a SEND fills (hasRecv was true).
func (q *qp) headRecv() recvWQE {
	if q.srq == nil {
		return q.rq[0]
	}
	return *q.srqHeld
}

// popRecv consumes the head RECV.
func (q *qp) popRecv() recvWQE {
	if q.srq == nil {
		r := q.rq[0]
		q.rq = q.rq[1:]
		return r
	}
	r := *q.srqHeld
	q.srqHeld = nil
	return r
}

// qpSRQ is the SRQ a QP is created with (nil for none): one of this
// device's, not destroyed, and only for an RC QP (the tour's UD QP keeps
// its own receive queue).
func qpSRQ(d *device, attr verbs.QPInitAttr, fn string) (*srq, error) {
	if attr.SRQ == nil {
		return nil, nil
	}
	s, ok := attr.SRQ.(*srq)
	if !ok || s == nil || s.dev != d {
		return nil, verbs.Errorf(fn, errEINVAL, "srq must be an SRQ of sim0")
	}
	if attr.Type != verbs.QPTRC {
		return nil, verbs.Errorf(fn, errEINVAL, "the simulated NIC shares an SRQ between RC QPs only")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return nil, verbs.Errorf(fn, errEINVAL, "SRQ destroyed")
	}
	return s, nil
}
