package workshop

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
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

// InRoom says the attendee is still connected (or connecting).
func (p Phase) InRoom() bool {
	return p == PhaseConnecting || p == PhaseConnected || p == PhaseLanded
}

// Attendee is one client the room serves (or served): while it is in
// the room, its Session; once it has left, its row (and its Session
// only while it is among the last KeptSessions to leave, see retire.go).
type Attendee struct {
	N       int // 1, 2, ... in order of arrival
	Addr    netip.AddrPort
	Backend string // "rdma" or "sim"

	events *steps.EventQueue

	mu       sync.Mutex
	session  *steps.Session
	phase    Phase
	observed text.Text // what the server saw last, in a few words
	qpn      uint32
	qpState  string
	result   *steps.Result
	err      string
	last     time.Time
	atomics  string // what its atomics found, as it left (an atomic room)
	ran      int    // steps of its tour run so far, of steps
	steps    int
	lesson   string    // the lesson its hello named
	name     string    // the name its hello carried (--name), escaped
	expected text.Text // the lesson's error, met as the lesson meant
	left     time.Time // when it left the room (zero: still in it)

	// Its handshake, until ESTABLISHED (handshake.go): the context its
	// steps run under, and how the room cuts it short.
	arrived      time.Time
	handshake    context.Context
	endHandshake context.CancelCauseFunc
	reclaimed    bool // its seat went to a newcomer; guarded by the Room's mu

	vote attendeeVote // the room's question, as this attendee met it (votes.go)
}

// attendeeVote is the room's question as one attendee run met it: the
// room's lesson and round when it arrived, the pick and name its hello
// carried, and which choice happened (-1: not yet, or not judged).
type attendeeVote struct {
	lesson     *steps.Lesson
	round      int
	name       string
	pick, seen int
}

// Row is a copy of one attendee's row.
type Row struct {
	N        int
	Addr     netip.AddrPort
	Backend  string
	QPN      uint32
	QPState  string
	Phase    Phase
	Observed text.Text
	// Via and Message are set once the data landed.
	Landed  bool
	Via     steps.Notify
	Bytes   int
	Message privdata.PeerBytes
	Err     string
	Last    time.Time
	// Atomics, in an atomic room, is what the attendee's atomics found on
	// the shared counter, as this side's wire saw them (counter.go).
	Atomics string
	// Ran of Steps of the server's side of the attendee's tour have run.
	Ran, Steps int
	// Lesson is the lesson the attendee's hello named ("" for the tour);
	// Expected the lesson's error this side met, as the lesson meant
	// (the run is a success: the attendee saw what the lesson shows).
	Lesson   string
	Expected text.Text
	// Arrived is its connect request's time; Left when it left the room
	// (zero while it is in it).
	Arrived, Left time.Time
	// Name is the name the attendee's hello carried (--name), escaped:
	// their bytes. "" for none (Who falls back to the address).
	Name string
	// Stuck: still in the room, and nothing happened for longer than the
	// room's StuckAfter (set by Room.Roster).
	Stuck bool
	// Votes are the room's question as this run met it (First and
	// Second set by Room.Roster).
	Votes Votes
}

// Row copies the attendee's state.
func (a *Attendee) Row() Row {
	a.mu.Lock()
	defer a.mu.Unlock()
	row := Row{N: a.N, Addr: a.Addr, Backend: a.Backend, QPN: a.qpn, QPState: a.qpState,
		Phase: a.phase, Observed: a.observed, Err: a.err, Last: a.last, Atomics: a.atomics,
		Ran: a.ran, Steps: a.steps, Lesson: a.lesson, Expected: a.expected, Name: a.name, Arrived: a.arrived, Left: a.left,
		Votes: Votes{Name: a.vote.name, Lesson: a.vote.lesson.String(), Pick: a.vote.pick, Seen: a.vote.seen}}
	if a.result != nil {
		row.Landed, row.Via, row.Message, row.Bytes = true, a.result.Via, a.result.Message, len(a.result.Message)
	}
	return row
}

// Session is the attendee's server-side session (for the usual panes).
func (a *Attendee) Session() *steps.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session
}

// newAttendeeSession is a server steps.Session for the connection ev opened,
// on a PD of its own (in the atomic room, the room's shared one), reading
// its events from q.
func (r *Room) newAttendeeSession(l *listener, ev verbs.CMEvent, q *steps.EventQueue, lesson *steps.Lesson) (*steps.Session, error) {
	dev := ev.ID.Device()
	if dev == nil {
		return nil, errors.New("the connect request's id has no device")
	}
	pd, counter, err := r.sharedPDFor(dev, l.prov.Name())
	if err != nil {
		return nil, err
	}
	h := &attendeeHost{req: ev, pd: pd, events: q}
	if counter != nil {
		h.counter = counter.mr
	}
	if h.srq, err = r.srqFor(dev, l.prov.Name(), pd); err != nil {
		return nil, err
	}
	return steps.NewHosted(steps.Config{Role: steps.Server, Provider: l.prov, BackendWhy: r.cfg.BackendWhy, Bind: r.cfg.Bind,
		Timeout: r.cfg.IdleLimit, RNRRetry: r.cfg.RNRRetry, Tour: r.cfg.Tour, Lesson: lesson}, h)
}

// attendeeHost is the Room as one attendee's steps.Session sees it (Host).
type attendeeHost struct {
	req     verbs.CMEvent
	pd      verbs.PD
	events  *steps.EventQueue
	counter verbs.MR
	srq     *roomSRQ // --srq: the room's on this device (srq.go)
}

func (h *attendeeHost) Request() verbs.CMEvent    { return h.req }
func (h *attendeeHost) PD() verbs.PD              { return h.pd }
func (h *attendeeHost) Events() *steps.EventQueue { return h.events }
func (h *attendeeHost) Counter() verbs.MR         { return h.counter }

// SharedRecv makes the attendeeHost a steps.SRQHost: nil without --srq.
func (h *attendeeHost) SharedRecv() *steps.SharedRecv {
	if h.srq == nil {
		return nil
	}
	return h.srq.shared()
}

// Owns keeps this connection's packets of the room's shared device: the
// attendee's QP is the request's, ours the Session's. It also drops the
// other attendees' CM MADs. An iWARP message carries no QP: the Session
// kept it for its TCP connection's addresses already (steps ownIWARP).
func (h *attendeeHost) Owns(p verbs.Packet, ownQP uint32) bool {
	if p.IWARP != nil {
		return true
	}
	if p.Outbound {
		return p.DestQP == h.req.QPNum
	}
	return ownQP != 0 && p.DestQP == ownQP
}

// serve runs one attendee's side of the tour to its end, then frees it.
func (r *Room) serve(l *listener, a *Attendee, ev verbs.CMEvent) {
	defer r.serving.Done()
	defer r.leave(a, ev.ID)
	s, err := r.newAttendeeSession(l, ev, a.events, a.vote.lesson)
	if err != nil {
		steps.RejectRequest(ev, "the server could not set up this connection")
		r.update(a, func() { a.phase, a.err, a.observed = PhaseFailed, err.Error(), errorWords(err) }, text.Text{})
		return
	}
	request := text.Text{EN: "connect request", ZH: "收到连接请求"}
	r.update(a, func() { a.session, a.observed = s, request }, request)
	r.takeVote(a, s.Progress())
	defer r.retire(a, s)
	// Until ESTABLISHED the attendee's steps run under the handshake's
	// own bound (handshake.go), not the idle limit.
	defer a.endHandshake(nil)
	var runErr error
	for {
		ctx := a.handshake
		if !a.inHandshake() {
			ctx = r.ctx
		}
		_, err := s.RunNext(ctx)
		if errors.Is(err, steps.ErrTourOver) {
			break
		}
		if err != nil {
			runErr = err
			break
		}
		r.observe(a, s)
	}
	if runErr != nil {
		r.fail(a, s, runErr, a.handshakeEnd())
	} // else the teardown step freed everything
}

// fail frees what the attendee's tour held when runErr ended it, and
// says on the roster why it ended; cut is why its handshake was cut
// short (nil: it was not).
func (r *Room) fail(a *Attendee, s *steps.Session, runErr error, cut error) {
	// The NAK the refusal sent may reach the wire view a moment after the
	// flushed completion ended the step: look again before reading it.
	s.Sample(time.Now())
	nak := s.Progress().Refusal
	s.Close()
	r.update(a, func() {
		a.qpState = "-"
		switch {
		case cut != nil:
			a.phase, a.observed = PhaseDropped, droppedWords(cut)
		case errors.Is(runErr, context.Canceled):
			a.phase, a.observed = PhaseDropped, text.Text{EN: "the workshop ended", ZH: "workshop 结束了"}
		case errors.Is(runErr, context.DeadlineExceeded):
			a.phase, a.observed = PhaseDropped, droppedWords(fmt.Errorf("no event for %v (idle limit)", r.cfg.IdleLimit))
		default:
			a.phase, a.err = PhaseFailed, attendeeFailure(runErr, text.EN)
			a.observed = failedWords(runErr, nak)
		}
	}, text.Text{})
}

// observe records what the step that just ran showed of the attendee.
func (r *Room) observe(a *Attendee, s *steps.Session) {
	p := s.Progress() // RunNext sampled the wire as the step ended
	done, res, last := p.Done, p.Result, p.Last
	state, qpn := p.QPState, p.QPNum
	tour, _ := steps.TourOf(r.cfg.Tour)
	what := observed(tour, p)
	if done && p.Expected.EN != "" {
		what = expectedWords(p, a.vote.lesson.String())
	}
	r.update(a, func() {
		if qpn != 0 {
			a.qpn = qpn
		}
		if state != "" {
			a.qpState = state
		}
		switch {
		case done:
			a.phase, a.qpState = PhaseFinished, "-"
		case res != nil:
			a.phase, a.result = PhaseLanded, res
		case last.Reaches(steps.MilestoneConnected):
			a.phase = PhaseConnected
		}
		if what.EN != "" {
			a.observed = what
		}
		a.ran, a.steps, a.lesson, a.expected, a.name = p.Ran, p.Steps, p.PeerLesson, p.Expected, p.PeerName
	}, what)
}

// update changes the attendee under its lock and stamps the time; when
// what is said or the phase changed, OnEvent hears of it (what, or the
// attendee's latest observation).
func (r *Room) update(a *Attendee, f func(), what text.Text) {
	a.mu.Lock()
	before := a.phase
	f()
	a.last = time.Now()
	if what.EN == "" && a.phase != before {
		what = a.observed
	}
	a.mu.Unlock()
	if what.EN != "" {
		r.emit(Event{Time: time.Now(), Row: a.Row(), What: what})
	}
}
