package steps

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// Phase is where an attendee stands, as the server has observed it.
type Phase int

const (
	PhaseConnecting Phase = iota // REQ received, being accepted
	PhaseConnected               // ESTABLISHED
	PhaseLanded                  // the data and the notification arrived
	PhaseFinished                // disconnected and freed after a whole tour
	PhaseFailed                  // an error ended its tour (see Err)
	PhaseDropped                 // idle past the limit, or the workshop ended
	PhaseTurnedAway              // rejected (only in events, never on the roster)
)

func (p Phase) String() string {
	switch p {
	case PhaseConnecting:
		return "connecting"
	case PhaseConnected:
		return "connected"
	case PhaseLanded:
		return "landed"
	case PhaseFinished:
		return "finished"
	case PhaseFailed:
		return "failed"
	case PhaseDropped:
		return "dropped"
	case PhaseTurnedAway:
		return "turned away"
	}
	return "?"
}

// Attendee is one client the room serves (or served).
type Attendee struct {
	N       int // 1, 2, ... in order of arrival
	Addr    netip.AddrPort
	Backend string // "rdma" or "sim"

	events *eventQueue

	mu       sync.Mutex
	session  *Session
	phase    Phase
	observed string // what the server saw last, in a few words
	qpn      uint32
	qpState  string
	result   *Result
	err      string
	last     time.Time
}

// RosterRow is a copy of one attendee's row.
type RosterRow struct {
	N        int
	Addr     netip.AddrPort
	Backend  string
	QPN      uint32
	QPState  string
	Phase    Phase
	Observed string
	// Via and Message are set once the data landed.
	Landed  bool
	Via     Notify
	Bytes   int
	Message privdata.PeerBytes
	Err     string
	Last    time.Time
	// Atomics, in an atomic room, is what the attendee's atomics found on
	// the shared counter, as this side's wire saw them (room_counter.go).
	Atomics string
}

// Row copies the attendee's state.
func (a *Attendee) Row() RosterRow {
	a.mu.Lock()
	defer a.mu.Unlock()
	row := RosterRow{N: a.N, Addr: a.Addr, Backend: a.Backend, QPN: a.qpn, QPState: a.qpState,
		Phase: a.phase, Observed: a.observed, Err: a.err, Last: a.last}
	if a.result != nil {
		row.Landed, row.Via, row.Message, row.Bytes = true, a.result.Via, a.result.Message, len(a.result.Message)
	}
	return row
}

// Session is the attendee's server-side session (for the usual panes).
func (a *Attendee) Session() *Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session
}

// attendeeTour is the server's side of kind after the connect request
// (the room's listener got it), less what the room does once for all
// (its PD and, in an atomic room, its shared counter): the steps one
// attendee's connection needs.
func attendeeTour(kind TourKind) []Step {
	full := baseTour(Config{Role: Server, Notify: NotifySend, Tour: kind})
	var tour []Step
	requested := false
	for _, st := range full {
		if requested && !st.roomShared {
			tour = append(tour, st)
		}
		requested = requested || st.Reaches(MilestoneRequested)
	}
	return tour
}

// newAttendeeSession is a server Session for the connection ev opened,
// on the room's PD, reading its events from q.
func (r *Room) newAttendeeSession(l *roomListener, ev verbs.CMEvent, q *eventQueue) (*Session, error) {
	dev := ev.ID.Device()
	if dev == nil {
		return nil, errors.New("the connect request's id has no device")
	}
	pd, counter, err := r.pdFor(dev, l.prov.Name())
	if err != nil {
		return nil, err
	}
	s, err := NewSession(Config{Role: Server, Provider: l.prov, BackendWhy: r.cfg.BackendWhy, Bind: r.cfg.Bind,
		Timeout: r.cfg.IdleLimit, RNRRetry: r.cfg.RNRRetry, Tour: r.cfg.Tour})
	if err != nil {
		return nil, err
	}
	if counter != nil {
		s.sharedCounter = counter.mr
	}
	s.tour = attendeeTour(r.cfg.Tour)
	s.outcomes = make([]*Outcome, len(s.tour))
	s.states = make([]RunState, len(s.tour))
	s.id, s.dev, s.pd, s.sharedPD, s.events = ev.ID, dev, pd, true, q
	peerQPN := ev.QPNum
	s.wireFilter = func(p verbs.Packet) bool {
		if p.Outbound {
			return p.DestQP == peerQPN
		}
		return s.qp != nil && p.DestQP == s.qp.Num()
	}
	s.got("REQ", fmt.Sprintf("qpn=0x%x, %d B private data", ev.QPNum, len(ev.PrivateData)))
	return s, nil
}

// serve runs one attendee's side of the tour to its end, then frees it.
func (r *Room) serve(l *roomListener, a *Attendee, ev verbs.CMEvent) {
	defer r.serving.Done()
	defer r.leave(a, ev.ID)
	s, err := r.newAttendeeSession(l, ev, a.events)
	if err != nil {
		rejectRequest(ev, "the server could not set up this connection")
		r.update(a, func() { a.phase, a.err, a.observed = PhaseFailed, err.Error(), "error: "+err.Error() }, "")
		return
	}
	r.update(a, func() { a.session, a.observed = s, "connect request" }, "connect request")
	var runErr error
	for {
		_, err := s.RunNext(r.ctx)
		if errors.Is(err, ErrTourOver) {
			break
		}
		if err != nil {
			runErr = err
			break
		}
		r.observe(a, s)
	}
	if runErr == nil {
		return // the teardown step freed everything
	}
	nak := refusal(s)
	s.Close()
	r.update(a, func() {
		a.qpState = "-"
		switch {
		case errors.Is(runErr, context.Canceled):
			a.phase, a.observed = PhaseDropped, "the workshop ended"
		case errors.Is(runErr, context.DeadlineExceeded):
			a.phase, a.observed = PhaseDropped, fmt.Sprintf("dropped: no event for %v (idle limit)", r.cfg.IdleLimit)
		default:
			a.phase, a.err = PhaseFailed, ExplainIn(runErr, "en")
			a.observed = "error: " + a.err
			if nak != "" {
				a.observed = "error: this side answered their request with " + nak + "; " + a.err
			}
		}
	}, "")
}

// refusal is the NAK this side sent the attendee, if its wire view has
// one ("" otherwise): why its QP went to ERR when a lesson's WRITE (a
// wrong rkey, an address past the MR) was refused.
func refusal(s *Session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.packets {
		if p.Outbound && p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeNAKPSNSeqErr {
			return verbs.SyndromeName(p.AETH.Syndrome)
		}
	}
	return ""
}

// observe records what the step that just ran showed of the attendee.
func (r *Room) observe(a *Attendee, s *Session) {
	s.mu.Lock()
	qp, done, res := s.qp, s.next >= len(s.tour), copyResult(s.result)
	last := s.tour[s.next-1]
	peerFirst := s.peerDREQ
	s.mu.Unlock()
	state := ""
	if qp != nil {
		if attr, err := qp.Query(); err == nil {
			state = attr.State.String()
		}
	}
	what := observed(s, last, res, peerFirst)
	r.update(a, func() {
		if qp != nil {
			a.qpn = qp.Num()
		}
		if state != "" {
			a.qpState = state
		}
		switch {
		case done:
			a.phase, a.qpState = PhaseFinished, "-"
		case res != nil:
			a.phase, a.result = PhaseLanded, res
		case last.Reaches(MilestoneConnected):
			a.phase = PhaseConnected
		}
		if what != "" {
			a.observed = what
		}
	}, what)
}

// observed says in words what the attendee's step last reached ("" for
// a step the roster does not report), from its milestones: the room
// never asks which step it was.
func observed(s *Session, last Step, res *Result, peerFirst bool) string {
	tour, _ := TourOf(s.cfg.Tour)
	switch {
	case last.Reaches(MilestoneConnected):
		return "connected"
	case last.Reaches(MilestoneLanded|MilestoneNotified) && (tour.Notifies || tour.SharedCounter) && res == nil:
		return "" // no result: nothing landed to report
	case last.Reaches(MilestoneNotified):
		return fmt.Sprintf("%d B landed, notified by %s: %s", len(res.Message), res.Via, res.Message)
	case last.Reaches(MilestoneLanded) && tour.SharedCounter:
		seen := s.atomicsSeen()
		if seen == "" { // a real device this process cannot capture on (loopback, no CAP_NET_RAW)
			seen = "this side's wire shows no packets, so not what they found"
		}
		return "atomics done: " + seen + "; room's " + res.Message.String()
	case last.Reaches(MilestoneLanded):
		return "READ the message and hung up"
	case last.Reaches(MilestoneDisconnected) && peerFirst:
		return "disconnected (the attendee hung up)"
	case last.Reaches(MilestoneDisconnected):
		return "disconnected (the server hung up)"
	case last.Reaches(MilestoneDone):
		return "finished: everything freed"
	}
	return ""
}

// update changes the attendee under its lock and stamps the time; when
// what is said or the phase changed, OnEvent hears of it (what, or the
// attendee's latest observation).
func (r *Room) update(a *Attendee, f func(), what string) {
	a.mu.Lock()
	before := a.phase
	f()
	a.last = time.Now()
	if what == "" && a.phase != before {
		what = a.observed
	}
	a.mu.Unlock()
	if what != "" {
		r.emit(RoomEvent{Time: time.Now(), Row: a.Row(), What: what})
	}
}

// Attendees lists everyone who came, in order of arrival.
func (r *Room) Attendees() []*Attendee {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Attendee(nil), r.attendees...)
}

// Roster copies every attendee's row.
func (r *Room) Roster() []RosterRow {
	as := r.Attendees()
	rows := make([]RosterRow, len(as))
	tour, _ := TourOf(r.cfg.Tour)
	shared := tour.SharedCounter
	for i, a := range as {
		rows[i] = a.Row()
		if s := a.Session(); s != nil && shared {
			rows[i].Atomics = s.atomicsSeen()
		}
	}
	return rows
}

// RoomCounts are the roster header's numbers.
type RoomCounts struct {
	Connected, Finished, Failed, TurnedAway int
	// Counters are the atomic room's shared counters, read now (none in
	// a write or read room).
	Counters []BackendCounter
}

// Counts counts the roster: connected is everyone still in the room.
func (r *Room) Counts() RoomCounts {
	var c RoomCounts
	for _, row := range r.Roster() {
		switch row.Phase {
		case PhaseConnecting, PhaseConnected, PhaseLanded:
			c.Connected++
		case PhaseFinished:
			c.Finished++
		case PhaseFailed, PhaseDropped:
			c.Failed++
		}
	}
	r.mu.Lock()
	c.TurnedAway = r.turned
	r.mu.Unlock()
	c.Counters = r.Counters()
	return c
}
