//go:build linux && cgo

package rdmacore

// Shared receive queues (ibv_create_srq and the rest) and the limit
// event, read off the device's asynchronous event queue.

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// sharedRQ is an ibv_srq.
type sharedRQ struct {
	p   *Provider
	dev *device
	pd  *protDomain

	mu    sync.Mutex
	srq   *C.struct_ibv_srq // nil once destroyed
	users int               // QPs created with it
}

var _ verbs.SRQ = (*sharedRQ)(nil)

// CreateSRQ is ibv_create_srq on the PD.
func (d *protDomain) CreateSRQ(attr verbs.SRQAttr) (verbs.SRQ, error) {
	const fn = "ibv_create_srq"
	if C.rt_has_srq(d.p.rt) == 0 {
		return nil, verbs.Errorf(fn, syscall.ENOSYS, "this libibverbs has no ibv_create_srq / ibv_get_async_event")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pd == nil {
		return nil, errDestroyed(fn, "pd")
	}
	var got C.struct_ibv_srq_attr
	srq, err := C.rt_create_srq(d.p.rt, d.pd, C.uint32_t(attr.MaxWR), C.uint32_t(attr.MaxSGE), &got)
	if srq == nil {
		return nil, cErr(fn, err, fmt.Sprintf("max_wr %d max_sge %d", attr.MaxWR, attr.MaxSGE))
	}
	d.users++
	d.p.count(func(c *verbs.ResourceCount) { c.SRQs++ })
	return &sharedRQ{p: d.p, dev: d.dev, pd: d, srq: srq}, nil
}

// PostRecv is ibv_post_srq_recv.
func (s *sharedRQ) PostRecv(wr verbs.RecvWR) error {
	const fn = "ibv_post_srq_recv"
	sges, err := sgl(fn, wr.SGList)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srq == nil {
		return errDestroyed(fn, "srq")
	}
	if rc := C.rt_post_srq_recv(s.srq, C.uint64_t(wr.WRID), sges, C.int(len(wr.SGList))); rc != 0 {
		return rcErr(fn, rc, fmt.Sprintf("wr_id %d", wr.WRID))
	}
	return nil
}

// Query is ibv_query_srq.
func (s *sharedRQ) Query() (verbs.SRQAttr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srq == nil {
		return verbs.SRQAttr{}, errDestroyed("ibv_query_srq", "srq")
	}
	var a C.struct_ibv_srq_attr
	if rc := C.rt_query_srq(s.p.rt, s.srq, &a); rc != 0 {
		return verbs.SRQAttr{}, rcErr("ibv_query_srq", rc, "")
	}
	return verbs.SRQAttr{MaxWR: uint32(a.max_wr), MaxSGE: uint32(a.max_sge), Limit: uint32(a.srq_limit)}, nil
}

// Arm is ibv_modify_srq with IBV_SRQ_LIMIT.
func (s *sharedRQ) Arm(limit uint32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srq == nil {
		return errDestroyed("ibv_modify_srq", "srq")
	}
	if rc := C.rt_modify_srq_limit(s.p.rt, s.srq, C.uint32_t(limit)); rc != 0 {
		return rcErr("ibv_modify_srq", rc, fmt.Sprintf("srq_limit %d", limit))
	}
	return nil
}

// LimitEvents reads the device's waiting async events and says how many
// limit events this SRQ has had.
func (s *sharedRQ) LimitEvents() (int, error) {
	s.mu.Lock()
	srq := s.srq
	s.mu.Unlock()
	if srq == nil {
		return 0, errDestroyed("ibv_get_async_event", "srq")
	}
	return s.dev.async.limitEvents(s.p, s.dev.ctx, srq)
}

// Destroy is ibv_destroy_srq (EBUSY while a QP uses it). The waiting
// async events are read and acked first: ibv_destroy_srq waits until
// every event the kernel reported for the SRQ has been acked.
func (s *sharedRQ) Destroy() error {
	const fn = "ibv_destroy_srq"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srq == nil {
		return errDestroyed(fn, "srq")
	}
	if s.users > 0 {
		return &verbs.Error{Func: fn, Errno: syscall.EBUSY, Detail: fmt.Sprintf("%d QP(s) still use this SRQ", s.users)}
	}
	if _, err := s.dev.async.limitEvents(s.p, s.dev.ctx, s.srq); err != nil {
		return err
	}
	if rc := C.rt_destroy_srq(s.p.rt, s.srq); rc != 0 {
		return rcErr(fn, rc, "")
	}
	s.dev.async.forget(s.srq)
	s.srq = nil
	s.pd.mu.Lock()
	s.pd.users--
	s.pd.mu.Unlock()
	s.p.count(func(c *verbs.ResourceCount) { c.SRQs-- })
	return nil
}

func (s *sharedRQ) use(delta int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.users += delta
	s.mu.Unlock()
}

// srqOf is init_attr.srq for attr's SRQ (NULL for none or one of another
// backend).
func srqOf(v verbs.SRQ) *C.struct_ibv_srq {
	s, ok := v.(*sharedRQ)
	if !ok || s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srq
}

// holdSRQ: the QP was created with v; v cannot be destroyed under it.
func (q *queuePair) holdSRQ(v verbs.SRQ) {
	if s, ok := v.(*sharedRQ); ok && s != nil {
		q.srq = s
		s.use(1)
	}
}

// asyncEvents are a device's asynchronous events as far as read: the
// limit events of each SRQ. One context's async_fd holds every SRQ's
// and QP's events, so they are counted here, for all of them.
type asyncEvents struct {
	mu    sync.Mutex
	limit map[*C.struct_ibv_srq]int
}

// limitEvents reads what waits on ctx's async_fd, without blocking, and
// returns srq's count.
func (a *asyncEvents) limitEvents(p *Provider, ctx *C.struct_ibv_context, srq *C.struct_ibv_srq) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.limit == nil {
		a.limit = map[*C.struct_ibv_srq]int{}
	}
	for {
		var typ C.int
		var which *C.struct_ibv_srq
		rc := C.rt_next_async_event(p.rt, ctx, &typ, &which)
		if rc < 0 {
			return a.limit[srq], rcErr("ibv_get_async_event", rc, "")
		}
		if rc == 0 {
			return a.limit[srq], nil
		}
		if typ == C.IBV_EVENT_SRQ_LIMIT_REACHED && which != nil {
			a.limit[which]++
		}
	}
}

func (a *asyncEvents) forget(srq *C.struct_ibv_srq) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.limit, srq)
}
