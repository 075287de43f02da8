package steps

import (
	"context"
	"sync"

	"github.com/rdmatour/rdmatour/verbs"
)

// A server's event channel carries the events of every connection its
// listener spawns. One reader owns the channel (a gate for the one-client
// server, the Room's dispatcher in a workshop) and hands each event to the
// session it is about through an EventQueue, so a second client's
// CONNECT_REQUEST never lands in the middle of the first client's tour.

// EventQueue is an unbounded FIFO of CM events that a session reads
// instead of the event channel.
type EventQueue struct {
	mu     sync.Mutex
	q      []verbs.CMEvent
	sig    chan struct{}
	closed error // set once: every later get returns it
}

// NewEventQueue is an empty queue; its owner Puts the events of one
// connection and Closes it when that connection can get no more.
func NewEventQueue() *EventQueue { return &EventQueue{sig: make(chan struct{})} }

func (q *EventQueue) Put(ev verbs.CMEvent) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed != nil {
		return
	}
	q.q = append(q.q, ev)
	close(q.sig)
	q.sig = make(chan struct{})
}

// Close makes every later get (once the queue is drained) fail with err.
func (q *EventQueue) Close(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed == nil {
		q.closed = err
		close(q.sig)
		q.sig = make(chan struct{})
	}
}

// Drain empties the queue and returns what was in it.
func (q *EventQueue) Drain() []verbs.CMEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.q
	q.q = nil
	return out
}

// get returns the next event. Like rdma_get_cm_event it looks before it
// checks ctx, so a short deadline still sees an event already queued.
func (q *EventQueue) get(ctx context.Context) (verbs.CMEvent, error) {
	for {
		q.mu.Lock()
		if len(q.q) > 0 {
			ev := q.q[0]
			q.q = q.q[1:]
			q.mu.Unlock()
			return ev, nil
		}
		if q.closed != nil {
			err := q.closed
			q.mu.Unlock()
			return verbs.CMEvent{}, err
		}
		sig := q.sig
		q.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return verbs.CMEvent{}, err
		}
		select {
		case <-ctx.Done():
		case <-sig:
		}
	}
}

// getEvent is rdma_get_cm_event for the steps: from the session's queue
// when something else owns the channel, from the channel otherwise.
func (s *Session) getEvent(ctx context.Context) (verbs.CMEvent, error) {
	s.mu.Lock()
	q, ec := s.events, s.ec
	s.mu.Unlock()
	if q != nil {
		return q.get(ctx)
	}
	return ec.GetEvent(ctx)
}

// Pump reads ch until ctx ends, handing each event to route. A channel
// error (other than ctx ending) is passed to fail and ends the pump.
func Pump(ctx context.Context, ch verbs.EventChannel, route func(verbs.CMEvent), fail func(error)) {
	for {
		ev, err := ch.GetEvent(ctx)
		if ctx.Err() != nil {
			if err == nil {
				route(ev) // fetched just as we stopped: do not lose it
			}
			return
		}
		if err != nil {
			fail(err)
			return
		}
		route(ev)
	}
}
