//go:build linux && cgo

package rdmacore

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"sync"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// compChannel is struct ibv_comp_channel. Its fd is set O_NONBLOCK, so
// GetCQEvent polls it in slices and honours its context, as GetEvent
// does for rdma_cm's channel.
type compChannel struct {
	p   *Provider
	dev *device

	mu    sync.Mutex // guards ch, cqs
	getMu sync.Mutex // GetCQEvent callers take turns
	ch    *C.struct_ibv_comp_channel
	fd    int
	cqs   map[*C.struct_ibv_cq]*compQueue
}

// cqNotify is a CQ's completion-channel part; compQueue.mu guards it.
type cqNotify struct {
	ch      *compChannel
	unacked int
}

var (
	_ verbs.CompChannelDevice = (*device)(nil)
	_ verbs.CompChannel       = (*compChannel)(nil)
	_ verbs.NotifyCQ          = (*compQueue)(nil)
)

// CreateCompChannel is ibv_create_comp_channel.
func (d *device) CreateCompChannel() (verbs.CompChannel, error) {
	ch, err := C.rt_create_comp_channel(d.p.rt, d.ctx)
	if ch == nil {
		return nil, cErr("ibv_create_comp_channel", err, d.name)
	}
	fd := int(C.rt_comp_channel_fd(ch))
	if rc := C.rt_set_nonblock(C.int(fd)); rc != 0 {
		C.rt_destroy_comp_channel(d.p.rt, ch)
		return nil, rcErr("fcntl", rc, "O_NONBLOCK on the completion channel")
	}
	d.p.count(func(c *verbs.ResourceCount) { c.CompChannels++ })
	return &compChannel{p: d.p, dev: d, ch: ch, fd: fd, cqs: map[*C.struct_ibv_cq]*compQueue{}}, nil
}

func (c *compChannel) FD() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		return -1
	}
	return c.fd
}

// CreateCQ is ibv_create_cq(ctx, cqe, NULL, channel, 0).
func (c *compChannel) CreateCQ(cqe int) (verbs.NotifyCQ, error) {
	if cqe <= 0 || cqe > 1<<24 {
		return nil, verbs.Errorf("ibv_create_cq", syscall.EINVAL, "cqe %d", cqe)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		return nil, errDestroyed("ibv_create_cq", "completion channel")
	}
	cq, err := C.rt_create_cq_on(c.p.rt, c.dev.ctx, C.int(cqe), c.ch)
	if cq == nil {
		return nil, cErr("ibv_create_cq", err, "on a completion channel")
	}
	c.p.count(func(rc *verbs.ResourceCount) { rc.CQs++ })
	q := &compQueue{p: c.p, cq: cq, cqe: int(cq.cqe), notify: &cqNotify{ch: c}}
	c.cqs[cq] = q
	return q, nil
}

// GetCQEvent is ibv_get_cq_event, waiting in slices of pollSlice.
func (c *compChannel) GetCQEvent(ctx context.Context) (verbs.NotifyCQ, error) {
	c.getMu.Lock()
	defer c.getMu.Unlock()
	for {
		q, err := c.tryGet()
		if err != nil || q != nil {
			return q, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

func (c *compChannel) tryGet() (*compQueue, error) {
	c.mu.Lock()
	if c.ch == nil {
		c.mu.Unlock()
		return nil, errDestroyed("ibv_get_cq_event", "completion channel")
	}
	ch, fd := c.ch, c.fd
	c.mu.Unlock()
	if r := C.rt_wait_fd(C.int(fd), pollSlice); r <= 0 {
		if r < 0 {
			return nil, rcErr("poll", r, "completion channel fd")
		}
		return nil, nil
	}
	var cq *C.struct_ibv_cq
	rc := C.rt_get_cq_event(c.p.rt, ch, &cq)
	if rc == -C.EAGAIN || rc == -C.EINTR {
		return nil, nil
	}
	if rc < 0 {
		return nil, rcErr("ibv_get_cq_event", rc, "")
	}
	c.mu.Lock()
	q := c.cqs[cq]
	c.mu.Unlock()
	if q == nil {
		return nil, &verbs.Error{Func: "ibv_get_cq_event", Errno: syscall.EINVAL, Detail: "an event for a CQ this channel does not know"}
	}
	q.mu.Lock()
	q.notify.unacked++
	q.mu.Unlock()
	return q, nil
}

// Destroy is ibv_destroy_comp_channel (EBUSY while a CQ uses it).
func (c *compChannel) Destroy() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		return errDestroyed("ibv_destroy_comp_channel", "completion channel")
	}
	if rc := C.rt_destroy_comp_channel(c.p.rt, c.ch); rc != 0 {
		return &verbs.Error{Func: "ibv_destroy_comp_channel", Errno: syscall.Errno(rc)}
	}
	c.ch = nil
	c.p.count(func(rc *verbs.ResourceCount) { rc.CompChannels-- })
	return nil
}

// ReqNotify is ibv_req_notify_cq: 0 or an errno value.
func (q *compQueue) ReqNotify(solicitedOnly bool) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	switch {
	case q.cq == nil:
		return errDestroyed("ibv_req_notify_cq", "cq")
	case q.notify == nil:
		return &verbs.Error{Func: "ibv_req_notify_cq", Errno: syscall.EINVAL, Detail: "the CQ has no completion channel"}
	}
	solicited := 0
	if solicitedOnly {
		solicited = 1
	}
	if rc := C.rt_req_notify_cq(q.cq, C.int(solicited)); rc != 0 {
		return &verbs.Error{Func: "ibv_req_notify_cq", Errno: syscall.Errno(rc)}
	}
	return nil
}

// AckEvents is ibv_ack_cq_events, for at most the events not yet acked.
func (q *compQueue) AckEvents(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cq == nil || q.notify == nil {
		return
	}
	n = min(max(n, 0), q.notify.unacked)
	if n > 0 {
		C.rt_ack_cq_events(q.p.rt, q.cq, C.uint(n))
		q.notify.unacked -= n
	}
}

// Unacked is how many returned events are not acked yet.
func (q *compQueue) Unacked() int {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.notify == nil {
		return 0
	}
	return q.notify.unacked
}

// releaseNotify is Destroy's part for a CQ on a channel: refused while
// events are unacked (ibv_destroy_cq would wait for them forever), else
// the channel forgets the CQ. q.mu is held.
func (q *compQueue) releaseNotify(destroy func() error) error {
	if q.notify == nil {
		return destroy()
	}
	if q.notify.unacked > 0 {
		return &verbs.Error{Func: "ibv_destroy_cq", Errno: syscall.EBUSY, Detail: verbs.UnackedCQEventsDetail(q.notify.unacked)}
	}
	ch, cq := q.notify.ch, q.cq
	if err := destroy(); err != nil {
		return err
	}
	ch.mu.Lock()
	delete(ch.cqs, cq)
	ch.mu.Unlock()
	return nil
}
