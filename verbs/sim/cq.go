package sim

import (
	"context"
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// cq is a completion queue.
type cq struct {
	dev *device
	cqe int

	mu      sync.Mutex
	entries []verbs.WC
	// marks[i] frees send queue slots when entries[i] is polled (the
	// strict profile's, sqslots.go); nil where polling frees nothing.
	marks []*slotMark
	refs  int // QPs attached
	dead  bool
	// ready holds a token when a completion arrived since the last Wait:
	// the simulated completion channel (ibv_req_notify_cq + ibv_get_cq_event).
	ready chan struct{}
	// notify is the completion channel's part (compchannel.go); nil for
	// a CQ made without one.
	notify *cqNotify
}

// CreateCQ is ibv_create_cq. Like rxe, the CQ holds more than asked:
// cq->cqe is rxe_queue_init's round-up (16 gives 31; measured on rxe:
// TestRxeQueueCaps).
func (d *device) CreateCQ(cqe int) (verbs.CQ, error) {
	if cqe < 1 || cqe > 4096 {
		return nil, verbs.Errorf("ibv_create_cq", errEINVAL, "cqe %d outside 1..4096", cqe)
	}
	d.p.count(func(r *verbs.ResourceCount) { r.CQs++ })
	return &cq{dev: d, cqe: int(rxeQueueDepth(uint32(cqe))), ready: make(chan struct{}, 1)}, nil
}

// rxeQueueDepth is how many entries rxe gives a queue asked to hold n
// (rxe_queue.c rxe_queue_init): a ring of the next power of two above n,
// one slot kept empty, so 8 gives 15 and 16 gives 31.
func rxeQueueDepth(n uint32) uint32 {
	slots := uint32(1)
	for slots < n+1 {
		slots <<= 1
	}
	return slots - 1
}

func (c *cq) CQE() int { return c.cqe }

// push adds a completion; false means the CQ was full (or destroyed) and
// the completion is lost. The CQ itself carries on, as rxe's does
// (rxe_cq.c rxe_cq_post returns -EBUSY and raises IBV_EVENT_CQ_ERR, which
// the sim does not deliver); what happens to the QP is its caller's
// choice (completeSend, completeRecv).
func (c *cq) push(wc verbs.WC) bool { return c.pushMarked(wc, nil) }

// pushMarked is push for a send completion whose poll frees m's slots.
func (c *cq) pushMarked(wc verbs.WC, m *slotMark) bool {
	c.mu.Lock()
	if c.dead || len(c.entries) >= c.cqe {
		c.mu.Unlock()
		return false
	}
	c.entries = append(c.entries, wc)
	c.marks = append(c.marks, m)
	ch := c.fire(wc.Status != verbs.WCSuccess && wc.Opcode&verbs.WCRecv != 0)
	c.mu.Unlock()
	if ch != nil {
		ch.post(c)
	}
	select {
	case c.ready <- struct{}{}:
	default:
	}
	return true
}

// Wait blocks until a completion may have arrived since the last Wait, or
// ctx ends (verbs.CQWaiter). On a software NIC a busy-polling consumer
// takes the CPU the "NIC" itself needs; waiting leaves it free.
func (c *cq) Wait(ctx context.Context) error {
	select {
	case <-c.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Poll is ibv_poll_cq. A CQ that overflowed still polls what it holds,
// as rxe's does (measured: TestRxeSendCQOverflow).
func (c *cq) Poll(most int) ([]verbs.WC, error) {
	c.mu.Lock()
	n := max(min(most, len(c.entries)), 0)
	c.mu.Unlock()
	out := make([]verbs.WC, n)
	n, err := c.PollInto(out)
	if n == 0 {
		return nil, err
	}
	return out[:n], err
}

var _ verbs.WCPoller = (*cq)(nil)

// PollInto is Poll into the caller's wc (verbs.WCPoller): nothing
// allocated, as a busy poller wants.
func (c *cq) PollInto(wc []verbs.WC) (int, error) {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return 0, verbs.Errorf("ibv_poll_cq", errEINVAL, "CQ destroyed")
	}
	n := copy(wc, c.entries)
	var marks [8]*slotMark
	taken := append(marks[:0], c.marks[:n]...)
	c.entries = append(c.entries[:0], c.entries[n:]...)
	c.marks = append(c.marks[:0], c.marks[n:]...)
	c.mu.Unlock()
	// After the CQ's lock: reclaim takes the QP's, which completeSend
	// holds while it takes the CQ's.
	for _, m := range taken {
		if m != nil {
			m.reclaim()
		}
	}
	return n, nil
}

// Destroy is ibv_destroy_cq.
func (c *cq) Destroy() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead {
		return verbs.Errorf("ibv_destroy_cq", errEINVAL, "CQ already destroyed")
	}
	if c.refs > 0 {
		return verbs.Errorf("ibv_destroy_cq", errEBUSY, "%d QPs still use this CQ", c.refs)
	}
	if c.notify != nil && c.notify.unacked > 0 {
		return &verbs.Error{Func: "ibv_destroy_cq", Errno: errEBUSY, Detail: verbs.UnackedCQEventsDetail(c.notify.unacked)}
	}
	if c.notify != nil {
		c.notify.ch.drop(c)
	}
	c.dead = true
	c.entries, c.marks = nil, nil
	c.dev.p.count(func(r *verbs.ResourceCount) { r.CQs-- })
	return nil
}
