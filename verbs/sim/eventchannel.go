package sim

// The CM event channel: events posted by connections, read with rdma_get_cm_event.

import (
	"context"
	"math/rand/v2"
	"sync"
	"syscall"

	"github.com/rdmatour/rdmatour/verbs"
)

// eventChannel is rdma_event_channel: a queue of CM events.
type eventChannel struct {
	p *Provider

	mu        sync.Mutex
	q         []queuedEvent
	sig       chan struct{} // closed and replaced on every post
	destroyed bool
	ids       map[*cmID]struct{}
}

// CreateEventChannel is rdma_create_event_channel.
func (p *Provider) CreateEventChannel() (verbs.EventChannel, error) {
	p.count(func(r *verbs.ResourceCount) { r.EventChannels++ })
	return &eventChannel{p: p, sig: make(chan struct{}), ids: map[*cmID]struct{}{}}, nil
}

func (ch *eventChannel) FD() int { return -1 }

// queuedEvent is an event waiting to be fetched. onGet, if set, runs
// when rdma_get_cm_event takes it, as librdmacm's event processing does
// (it sends the RTU when the application fetches the CONNECT_RESPONSE);
// false drops the event (the connection ended before it was fetched).
type queuedEvent struct {
	ev    verbs.CMEvent
	onGet func() bool
}

func (ch *eventChannel) post(ev verbs.CMEvent) { ch.postWith(ev, nil) }

// postWith queues ev with the action to run when it is fetched.
func (ch *eventChannel) postWith(ev verbs.CMEvent, onGet func() bool) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.destroyed {
		return
	}
	ch.q = append(ch.q, queuedEvent{ev, onGet})
	close(ch.sig)
	ch.sig = make(chan struct{})
}

// GetEvent is rdma_get_cm_event + rdma_ack_cm_event.
func (ch *eventChannel) GetEvent(ctx context.Context) (verbs.CMEvent, error) {
	for {
		ch.mu.Lock()
		if ch.destroyed {
			ch.mu.Unlock()
			return verbs.CMEvent{}, verbs.Errorf("rdma_get_cm_event", errEINVAL, "event channel destroyed")
		}
		if len(ch.q) > 0 {
			qe := ch.q[0]
			ch.q = ch.q[1:]
			ch.mu.Unlock()
			// id.mu is taken without ch.mu held: ids post events with
			// their own mu held (onCM), so holding ch.mu here while taking
			// an id's mu could deadlock with them (50 connections on one
			// workshop channel did).
			if id, ok := qe.ev.ID.(*cmID); ok && id.isDestroyed() {
				continue // the id went away before anyone saw the event
			}
			if qe.onGet != nil && !qe.onGet() {
				continue
			}
			return qe.ev, nil
		}
		sig := ch.sig
		ch.mu.Unlock()
		select {
		case <-ctx.Done():
			return verbs.CMEvent{}, ctx.Err()
		case <-sig:
		}
	}
}

// Destroy is rdma_destroy_event_channel. rdma_cm requires every id on the
// channel to be destroyed first; we refuse with EBUSY instead of leaking.
// Child ids whose CONNECT_REQUEST was never fetched are destroyed here:
// nobody could have seen them.
func (ch *eventChannel) Destroy() error {
	ch.mu.Lock()
	if ch.destroyed {
		ch.mu.Unlock()
		return verbs.Errorf("rdma_destroy_event_channel", errEINVAL, "already destroyed")
	}
	unseen := ch.unseenChildren(nil)
	n := len(ch.ids) - len(unseen)
	ch.mu.Unlock()
	if n > 0 {
		return verbs.Errorf("rdma_destroy_event_channel", errEBUSY, "%d rdma_cm ids still use this channel", n)
	}
	for _, c := range unseen {
		c.Destroy()
	}
	ch.mu.Lock()
	ch.destroyed = true
	ch.q = nil
	ch.mu.Unlock()
	ch.p.count(func(r *verbs.ResourceCount) { r.EventChannels-- })
	return nil
}

// unseenChildren lists child ids in queued CONNECT_REQUEST events (of
// listener l, or of any listener when l is nil). ch.mu must be held.
func (ch *eventChannel) unseenChildren(l *cmID) []*cmID {
	var out []*cmID
	for _, qe := range ch.q {
		ev := qe.ev
		if ev.Type != verbs.EventConnectRequest {
			continue
		}
		if lid, _ := ev.ListenID.(*cmID); l == nil || lid == l {
			if c, ok := ev.ID.(*cmID); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// CreateID is rdma_create_id.
func (ch *eventChannel) CreateID(ps verbs.PortSpace) (verbs.CMID, error) {
	if ps != verbs.PSTCP && ps != verbs.PSUDP {
		return nil, verbs.Errorf("rdma_create_id", syscall.EPROTONOSUPPORT, "%s: the simulated NIC does RDMA_PS_TCP and RDMA_PS_UDP only", ps)
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.destroyed {
		return nil, verbs.Errorf("rdma_create_id", errEINVAL, "event channel destroyed")
	}
	id := &cmID{p: ch.p, ch: ch, ps: ps, cmParams: cmParams{seqNum: uint32(rand.N(1 << 24))}}
	ch.ids[id] = struct{}{}
	ch.p.count(func(r *verbs.ResourceCount) { r.IDs++ })
	return id, nil
}
