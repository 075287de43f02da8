//go:build linux && cgo

package rdmacore

/*
#include <stdlib.h>
#include <errno.h>
#include <sys/socket.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/rdmatour/rdmatour/verbs"
)

// pollSlice is how long one poll() on the event channel's fd may block
// before GetEvent looks at its context again.
const pollSlice = 50 // ms

type eventChannel struct {
	p *Provider

	// mu guards ch against Destroy while a C call uses it; getMu makes
	// GetEvent callers take turns.
	mu    sync.RWMutex
	getMu sync.Mutex
	ch    *C.struct_rdma_event_channel
	fd    int
	ids   atomic.Int64 // live ids on this channel (children of listeners included)
}

var _ verbs.EventChannel = (*eventChannel)(nil)

// CreateEventChannel is rdma_create_event_channel. The channel's fd is set
// O_NONBLOCK so GetEvent can poll it and honour its context.
func (p *Provider) CreateEventChannel() (verbs.EventChannel, error) {
	ch, err := C.rt_create_event_channel(p.rt)
	if ch == nil {
		return nil, cErr("rdma_create_event_channel", err, "")
	}
	fd := int(C.rt_event_channel_fd(ch))
	if rc := C.rt_set_nonblock(C.int(fd)); rc != 0 {
		C.rt_destroy_event_channel(p.rt, ch)
		return nil, rcErr("fcntl", rc, "O_NONBLOCK on the event channel")
	}
	p.count(func(c *verbs.ResourceCount) { c.EventChannels++ })
	return &eventChannel{p: p, ch: ch, fd: fd}, nil
}

func (e *eventChannel) FD() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.ch == nil {
		return -1
	}
	return e.fd
}

func errDestroyed(fn, what string) error {
	return &verbs.Error{Func: fn, Errno: syscall.EINVAL, Detail: what + " already destroyed"}
}

// CreateID is rdma_create_id(channel, &id, NULL, ps).
func (e *eventChannel) CreateID(ps verbs.PortSpace) (verbs.CMID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ch == nil {
		return nil, errDestroyed("rdma_create_id", "event channel")
	}
	var id *C.struct_rdma_cm_id
	if rc, err := C.rt_create_id(e.p.rt, e.ch, &id, C.int(ps)); rc != 0 {
		return nil, cErr("rdma_create_id", err, ps.String())
	}
	e.ids.Add(1)
	return e.p.register(id, e), nil
}

func (p *Provider) register(id *C.struct_rdma_cm_id, ch *eventChannel) *cmID {
	c := &cmID{p: p, ch: ch, id: id}
	p.mu.Lock()
	p.ids[id] = c
	p.live.IDs++
	p.mu.Unlock()
	return c
}

// GetEvent waits for the next CM event (poll on the fd in short slices,
// checking ctx between them), copies it out and acks it.
func (e *eventChannel) GetEvent(ctx context.Context) (verbs.CMEvent, error) {
	e.getMu.Lock()
	defer e.getMu.Unlock()
	// Look before checking ctx: a short deadline (a non-blocking check for
	// a pending event) must still see an event that is already there.
	for {
		ev, ok, err := e.tryGet()
		if err != nil || ok {
			return ev, err
		}
		if err := ctx.Err(); err != nil {
			return verbs.CMEvent{}, err
		}
	}
}

func (e *eventChannel) tryGet() (verbs.CMEvent, bool, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.ch == nil {
		return verbs.CMEvent{}, false, errDestroyed("rdma_get_cm_event", "event channel")
	}
	r := C.rt_wait_fd(C.int(e.fd), pollSlice)
	if r < 0 {
		return verbs.CMEvent{}, false, rcErr("poll", r, "event channel fd")
	}
	if r == 0 {
		return verbs.CMEvent{}, false, nil
	}
	var ev C.struct_rt_event
	rc := C.rt_get_event(e.p.rt, e.ch, &ev)
	if rc == -C.EAGAIN || rc == -C.EINTR {
		return verbs.CMEvent{}, false, nil
	}
	if rc < 0 {
		return verbs.CMEvent{}, false, rcErr("rdma_get_cm_event", rc, "")
	}
	out := verbs.CMEvent{
		Type:   verbs.CMEventType(ev._type),
		Status: int(ev.status),
	}
	if ev.has_conn != 0 {
		if n := int(ev.private_data_len); n > 0 {
			out.PrivateData = C.GoBytes(unsafe.Pointer(&ev.private_data[0]), C.int(n))
		}
		out.ResponderResources = uint8(ev.responder_resources)
		out.InitiatorDepth = uint8(ev.initiator_depth)
		out.RNRRetryCount = uint8(ev.rnr_retry_count)
		out.QPNum = uint32(ev.qp_num)
		if ev.is_ud != 0 {
			out.UD = udParam(&ev)
		}
	}
	if out.Type == verbs.EventConnectRequest {
		// A new id the listener spawned: it reports on this channel.
		e.ids.Add(1)
		out.ID = e.p.register(ev.id, e)
	} else if c := e.p.lookup(ev.id); c != nil {
		out.ID = c
	}
	if ev.listen_id != nil {
		if c := e.p.lookup(ev.listen_id); c != nil {
			out.ListenID = c
		}
	}
	return out, true, nil
}

func (p *Provider) lookup(id *C.struct_rdma_cm_id) *cmID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[id]
}

// Destroy is rdma_destroy_event_channel. Every id on the channel must be
// destroyed first (librdmacm would otherwise free a channel still in use).
func (e *eventChannel) Destroy() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ch == nil {
		return errDestroyed("rdma_destroy_event_channel", "event channel")
	}
	if n := e.ids.Load(); n > 0 {
		return &verbs.Error{Func: "rdma_destroy_event_channel", Errno: syscall.EBUSY,
			Detail: fmt.Sprintf("%d rdma_cm_id(s) still use this channel", n)}
	}
	C.rt_destroy_event_channel(e.p.rt, e.ch)
	e.ch = nil
	e.p.count(func(c *verbs.ResourceCount) { c.EventChannels-- })
	return nil
}
