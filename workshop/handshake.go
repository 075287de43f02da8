package workshop

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// Half-open handshakes. An attendee holds a seat from its connect request
// on; until its RTU comes (ESTABLISHED) the handshake is half open. A
// client that sends the REQ and never the RTU used to hold its seat for
// the whole idle limit, and 60 of them held a 60-seat room for 15 minutes
// (hostile review W15). Two bounds now:
//
//   - Time. A half-open handshake gets the handshake's own timeout, not
//     the idle limit: DefaultHandshakeTimeout, the time the kernel's CM
//     gives a REP that no CM acknowledges. rdma_cm's REQ asks for a CM
//     response timeout of 20 (CMA_CM_RESPONSE_TIMEOUT, 4.096 µs × 2^20,
//     which cm.c's cm_convert_to_ms makes 4096 ms) and 15 retries
//     (CMA_MAX_CM_RETRIES), so the passive side sends its REP 16 times,
//     4.1 s apart, and gives up after about 65 s (drivers/infiniband/core
//     cma.c and cm.c). A client whose CM acknowledges the REP (MRA) while
//     its application has not fetched ESTABLISHED could keep the
//     handshake alive for 17 minutes on a real CM; the room cannot tell
//     such a learner from a client that holds seats, so it bounds both:
//     a learner who waits longer than that between "send the connect
//     request" and "wait for ESTABLISHED" starts their client again.
//   - Share. Once the room is full, an address with more than its share
//     of handshakes half open (halfOpenShare: max(2, MaxAttendees/4), 15
//     of the default 60) gives its oldest one up to a newcomer from an
//     address within its share; a request from an address over its share
//     is turned away, with why. Attendees behind one NAT share one
//     address, and a whole class may press Enter at once: so nothing is
//     refused while seats are free, and seats held ESTABLISHED are never
//     taken (the idle limit bounds those). One address that holds
//     handshakes open can then keep nobody out. A connect request whose
//     id does not know its peer's address yet (rxe's may not) counts as
//     within its share.

// DefaultHandshakeTimeout: see above.
const DefaultHandshakeTimeout = 65 * time.Second

// handshakeContext is what a new attendee's steps run under until
// ESTABLISHED: the handshake's timeout, and a cause the room can cut it
// short with.
func (r *Room) handshakeContext() (context.Context, context.CancelCauseFunc) {
	timed, stop := context.WithTimeoutCause(r.ctx, r.cfg.HandshakeTimeout,
		fmt.Errorf("no RTU within %v of the connect request (the handshake's timeout)", r.cfg.HandshakeTimeout))
	cut, cancel := context.WithCancelCause(timed)
	return cut, func(cause error) { cancel(cause); stop() }
}

// handshakeEnd is why the attendee's handshake was cut short: its
// timeout, or its seat given to a newcomer; nil when it was not (it
// reached ESTABLISHED, or the workshop ended).
func (a *Attendee) handshakeEnd() error {
	if !a.inHandshake() {
		return nil
	}
	cause := context.Cause(a.handshake)
	if cause == nil || errors.Is(cause, context.Canceled) {
		return nil
	}
	return cause
}

// halfOpenShare is how many handshakes one address may have half open
// in a full room.
func (r *Room) halfOpenShare() int { return max(2, r.cfg.MaxAttendees/4) }

// halfOpen counts the half-open handshakes from each address, those not
// already given up. The caller holds r.mu.
func (r *Room) halfOpen() map[netip.Addr][]*Attendee {
	by := map[netip.Addr][]*Attendee{}
	for _, a := range r.byID {
		if a.Addr.IsValid() && !a.reclaimed && a.inHandshake() {
			by[a.Addr.Addr()] = append(by[a.Addr.Addr()], a)
		}
	}
	return by
}

// reclaimSeat makes room for ev in a full room: the oldest half-open
// handshake of an address over its share is cut short, unless ev's own
// address is over its share. It says whether ev may have the seat. The
// caller holds r.mu.
func (r *Room) reclaimSeat(ev verbs.CMEvent) bool {
	by, share := r.halfOpen(), r.halfOpenShare()
	if ev.ID != nil && len(by[ev.ID.PeerAddr().Addr()]) >= share {
		return false
	}
	var oldest *Attendee
	for _, as := range by {
		if len(as) <= share {
			continue
		}
		for _, a := range as {
			if oldest == nil || a.arrived.Before(oldest.arrived) {
				oldest = a
			}
		}
	}
	if oldest == nil {
		return false
	}
	oldest.reclaimed = true
	oldest.endHandshake(fmt.Errorf("the room was full and %s had more than %d handshakes half open: this one's seat went to a newcomer", oldest.Addr.Addr(), share))
	return true
}

// fullReason is why a full room turns ev away.
func (r *Room) fullReason(ev verbs.CMEvent) string {
	share := r.halfOpenShare()
	if ev.ID != nil && ev.ID.PeerAddr().IsValid() {
		from := ev.ID.PeerAddr().Addr()
		if len(r.halfOpen()[from]) >= share {
			return fmt.Sprintf("server full, and %s already has %d handshakes half open (%d at most per address in a full room): finish one, or try again in a minute", from, share, share)
		}
	}
	return steps.FullReason(r.cfg.MaxAttendees)
}

// inHandshake says the attendee's connection is not ESTABLISHED yet.
func (a *Attendee) inHandshake() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.phase == PhaseConnecting
}
