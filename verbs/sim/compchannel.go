package sim

import (
	"context"
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// The simulated completion channel, on rxe's rules (rxe_cq.c, Linux
// 6.1): ibv_req_notify_cq arms the CQ (rxe_req_notify_cq sets
// cq->notify), and the next completion posted to an armed CQ disarms it
// and raises one event (rxe_cq_post: "if (cq->notify == IB_CQ_NEXT_COMP
// || (cq->notify == IB_CQ_SOLICITED && solicited)) { cq->notify = 0;
// comp_handler }"). Completions already in the CQ when it is armed
// raise nothing: that is the lost wake-up a program meets when it polls,
// finds nothing, and arms after a completion slipped in between.

// compChannel is struct ibv_comp_channel.
type compChannel struct {
	dev *device

	mu     sync.Mutex
	events []*cq // CQs whose event waits to be read, oldest first
	ready  chan struct{}
	cqs    int // live CQs made on this channel
	dead   bool
}

var (
	_ verbs.CompChannelDevice = (*device)(nil)
	_ verbs.CompChannel       = (*compChannel)(nil)
	_ verbs.NotifyCQ          = (*cq)(nil)
)

// armState is cq->notify.
type armState uint8

const (
	armNone armState = iota
	armNext
	armSolicited
)

// cqNotify is the part of a CQ made on a completion channel; cq.mu
// guards it.
type cqNotify struct {
	ch      *compChannel
	armed   armState
	unacked int // events GetCQEvent returned that AckEvents has not acked
}

// CreateCompChannel is ibv_create_comp_channel.
func (d *device) CreateCompChannel() (verbs.CompChannel, error) {
	d.p.count(func(r *verbs.ResourceCount) { r.CompChannels++ })
	return &compChannel{dev: d, ready: make(chan struct{}, 1)}, nil
}

// FD is -1: the simulated channel has no file descriptor.
func (ch *compChannel) FD() int { return -1 }

// CreateCQ is ibv_create_cq(ctx, cqe, NULL, channel, 0).
func (ch *compChannel) CreateCQ(cqe int) (verbs.NotifyCQ, error) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.dead {
		return nil, verbs.Errorf("ibv_create_cq", errEINVAL, "the completion channel is destroyed")
	}
	c, err := ch.dev.CreateCQ(cqe)
	if err != nil {
		return nil, err
	}
	q := c.(*cq)
	q.notify = &cqNotify{ch: ch}
	ch.cqs++
	return q, nil
}

// post queues cq's event and wakes a waiter.
func (ch *compChannel) post(c *cq) {
	ch.mu.Lock()
	ch.events = append(ch.events, c)
	ch.mu.Unlock()
	select {
	case ch.ready <- struct{}{}:
	default:
	}
}

// GetCQEvent is ibv_get_cq_event.
func (ch *compChannel) GetCQEvent(ctx context.Context) (verbs.NotifyCQ, error) {
	for {
		ch.mu.Lock()
		if ch.dead {
			ch.mu.Unlock()
			return nil, verbs.Errorf("ibv_get_cq_event", errEINVAL, "the completion channel is destroyed")
		}
		if len(ch.events) > 0 {
			c := ch.events[0]
			ch.events = ch.events[1:]
			ch.mu.Unlock()
			c.mu.Lock()
			c.notify.unacked++
			c.mu.Unlock()
			return c, nil
		}
		ch.mu.Unlock()
		select {
		case <-ch.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Destroy is ibv_destroy_comp_channel.
func (ch *compChannel) Destroy() error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	switch {
	case ch.dead:
		return verbs.Errorf("ibv_destroy_comp_channel", errEINVAL, "already destroyed")
	case ch.cqs > 0:
		return verbs.Errorf("ibv_destroy_comp_channel", errEBUSY, "%d CQs still use this channel", ch.cqs)
	}
	ch.dead = true
	ch.dev.p.count(func(r *verbs.ResourceCount) { r.CompChannels-- })
	return nil
}

// drop forgets c's pending events and c itself (its CQ is destroyed).
func (ch *compChannel) drop(c *cq) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	kept := ch.events[:0]
	for _, e := range ch.events {
		if e != c {
			kept = append(kept, e)
		}
	}
	ch.events = kept
	ch.cqs--
}

// ReqNotify is ibv_req_notify_cq: a NEXT_COMP arm is not narrowed by a
// later solicited one (rxe_req_notify_cq).
func (c *cq) ReqNotify(solicitedOnly bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.dead:
		return verbs.Errorf("ibv_req_notify_cq", errEINVAL, "CQ destroyed")
	case c.notify == nil:
		return verbs.Errorf("ibv_req_notify_cq", errEINVAL, "the CQ has no completion channel")
	case c.notify.armed == armNext:
	case solicitedOnly:
		c.notify.armed = armSolicited
	default:
		c.notify.armed = armNext
	}
	return nil
}

// AckEvents is ibv_ack_cq_events.
func (c *cq) AckEvents(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notify != nil {
		c.notify.unacked -= min(max(n, 0), c.notify.unacked)
	}
}

// Unacked is how many returned events are not acked yet.
func (c *cq) Unacked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notify == nil {
		return 0
	}
	return c.notify.unacked
}

// fire is rxe_cq_post's notify check for a completion just added; c.mu
// is held. solicited: rxe's responder marks error completions of
// receives so (the sim's WC carries no SE bit of a SEND).
func (c *cq) fire(solicited bool) *compChannel {
	n := c.notify
	if n == nil || !(n.armed == armNext || n.armed == armSolicited && solicited) {
		return nil
	}
	n.armed = armNone
	return n.ch
}
