package steps

import (
	"fmt"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Hosting: a workshop Room runs one server Session per attendee on its
// own listener and device. Host is everything the Room gives such a
// Session, NewHosted the one way to make it, and Progress the one read a
// roster takes of it: a host touches no private field of Session and
// never takes its lock.
//
// The PD is the protection boundary between attendees: a responder
// serves an rkey only when its MR is in the PD of the QP the request
// came on (IB spec C9-*, rxe_mr.c lookup_mr and the sim's checkRange),
// and an rkey is only 8 random bits over a guessable index. So a hosted
// Session allocates a PD of its own unless the host hands it one to
// share, which only the atomic room does: its QP must sit in the PD of
// the one counter every attendee's atomics hit, and then every MR of
// the Session's own there is LOCAL_WRITE only (stepRegData).

// Host is what a workshop gives a Session it hosts.
type Host interface {
	// Request is the CONNECT_REQUEST that opened the connection: its id
	// is the Session's, on the device the Session uses.
	Request() verbs.CMEvent
	// PD is a protection domain the host shares between its Sessions
	// (the atomic room's, holding the counter): the Session's teardown
	// leaves it. Nil: the Session allocates a PD of its own, which only
	// its connection's QP and MRs use, and its teardown frees it.
	PD() verbs.PD
	// Events are the connection's CM events (the host owns the channel).
	Events() *EventQueue
	// Counter, in an atomic room, is the room's shared counter: the
	// accept hands it out instead of the Session's buffer. Nil: none.
	Counter() verbs.MR
	// Owns says p is this connection's on a device other connections
	// share; ownQP is the Session's QP number (0 before it has one).
	// Called with the Session's lock held: it must not call back.
	Owns(p verbs.Packet, ownQP uint32) bool
}

// NewHosted is a server Session for the connection h's request opened:
// the steps one attendee's connection needs (attendeeTour), on h's
// shared PD or a PD of its own, reading h's events.
func NewHosted(cfg Config, h Host) (*Session, error) {
	ev := h.Request()
	dev := ev.ID.Device()
	if dev == nil {
		return nil, fmt.Errorf("the connect request's id has no device")
	}
	s, err := NewSession(cfg)
	if err != nil {
		return nil, err
	}
	// A room on an iWARP device runs only what iWARP can (onIWARP): the
	// atomic and ud rooms, and the manual track, are refused per
	// connection before anything is allocated for it.
	if _, err := s.onIWARP(dev); err != nil {
		return nil, err
	}
	s.sharedCounter = h.Counter()
	s.tour = attendeeTour(s.tour)
	if s.srq = sharedRecvOf(h); s.srq != nil {
		s.tour = withoutSRQShared(s.tour)
	}
	s.SkipPrediction() // the attendee's screen asks; the room only collects the picks
	s.outcomes = make([]*Outcome, len(s.tour))
	s.states = make([]RunState, len(s.tour))
	pd, shared := h.PD(), true
	if pd == nil {
		if pd, err = dev.AllocPD(); err != nil {
			return nil, err
		}
		shared = false
	}
	s.id, s.pd, s.sharedPD, s.events = ev.ID, pd, shared, h.Events()
	s.useDevice(dev) // the timeline names what an iWARP wire carries
	s.wireFilter = func(p verbs.Packet) bool {
		var own uint32
		if s.qp != nil {
			own = s.qp.Num()
		}
		return h.Owns(p, own)
	}
	s.got("REQ", fmt.Sprintf("qpn=0x%x, %d B private data", ev.QPNum, len(ev.PrivateData)))
	s.learnPeerTour(ev.PrivateData) // what the attendee runs, for the roster and the results
	return s, nil
}

// attendeeTour is the server's side of the room's tour (full: the
// room's lesson, when it has one, applied) after the connect request (the
// room's listener got it), less what the room does once for all (its PD
// and, in an atomic room, its shared counter): the steps one attendee's
// connection needs.
func attendeeTour(full []Step) []Step {
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

// sharedCounterNote is what an attendee's accept adds in an atomic room.
var sharedCounterNote = text.Text{EN: "This is a workshop room: the addr and rkey in remote_info are the room's one shared counter, not a buffer of this connection's own. Every attendee's atomics land on the same 8 bytes.",
	ZH: "这是 workshop 教室：remote_info 里的 addr 和 rkey 指向教室里唯一一个共享计数器，而不是这条连接自己的 buffer。所有学员的原子操作都落在同样这 8 个字节上。"}

// Progress is where a hosted Session stands, as a roster shows it.
type Progress struct {
	// Last is the last finished step (zero before the first), Done says
	// every step ran.
	Last Step
	Done bool
	// QPNum and QPState are the QP's, read now (0 and "" without one).
	QPNum   uint32
	QPState string
	// Result is what landed (nil: nothing yet).
	Result *Result
	// PeerHungUp: the peer's DREQ came before this side's.
	PeerHungUp bool
	// Refusal names the NAK this side sent the peer, if its wire view
	// has one: why its QP went to ERR when a lesson's WRITE was refused.
	Refusal string
	// Atomics is what the peer's atomics found (atomicsLocked), as of the
	// last Sample.
	Atomics string
	// Ran and Steps are how many of this side's steps have run, of how
	// many: a roster's progress bar.
	Ran, Steps int
	// PeerLesson is the lesson the peer's hello named ("" for the plain
	// tour, no hello yet, or none sent).
	PeerLesson string
	// Expected is the first error this side met that was the point of
	// the lesson (its own, or the peer's it adopted); empty for none.
	// The tour went on past it.
	Expected text.Text
	// PeerPick and PeerName are the peer's vote, from its hello (0 and
	// "": none): its answer to the lesson's question, 1-based, and the
	// name it goes by. PeerName is the peer's bytes, escaped.
	PeerPick int
	PeerName string
	// RefusalStatus is the completion status the NAK in Refusal gives
	// the peer's work request (WCSuccess when there is no such NAK).
	RefusalStatus verbs.WCStatus
}

// Progress copies where the session stands. It writes nothing: what the
// wire showed is as of the last Sample.
func (s *Session) Progress() Progress {
	s.mu.Lock()
	p := Progress{Done: s.next >= len(s.tour), Result: copyResult(s.result), PeerHungUp: s.peerDREQ,
		Refusal: s.refusalLocked(), Atomics: s.atomicsLocked(),
		Ran: s.next, Steps: len(s.tour), PeerLesson: s.peerTour.Lesson(), Expected: s.expectedLocked(),
		PeerPick: s.peerTour.Vote.Pick, PeerName: s.peerTour.Vote.Name.String(), RefusalStatus: s.refusalStatusLocked()}
	if s.next > 0 {
		p.Last = s.tour[s.next-1]
	}
	qp := s.qp
	s.mu.Unlock()
	if qp != nil { // asked outside the lock: a query may take a moment
		p.QPNum = qp.Num()
		if attr, err := qp.Query(); err == nil {
			p.QPState = attr.State.String()
		}
	}
	return p
}

// expectedLocked is the first expected failure's explanation ("" for
// none). Called with s.mu held.
func (s *Session) expectedLocked() text.Text {
	for _, o := range s.outcomes {
		if o != nil && o.Expected {
			return o.Failure
		}
	}
	return text.Text{}
}

// refusalStatusLocked is the status the NAK this side sent gives the
// peer's work request (IB spec 9.7.5.2.8 and rxe_comp.c's NAK codes:
// invalid request, remote access, remote operational error);
// WCSuccess for none. Called with s.mu held.
func (s *Session) refusalStatusLocked() verbs.WCStatus {
	for _, p := range s.packets {
		if !p.Outbound || p.AETH == nil || p.AETH.Syndrome&0xE0 != verbs.SyndromeNAKPSNSeqErr {
			continue
		}
		switch p.AETH.Syndrome {
		case verbs.SyndromeNAKInvReq:
			return verbs.WCRemInvReqErr
		case verbs.SyndromeNAKRemAccess:
			return verbs.WCRemAccessErr
		case verbs.SyndromeNAKRemOpErr:
			return verbs.WCRemOpErr
		}
	}
	return verbs.WCSuccess
}

// refusalLocked is the NAK this side sent, "" when its wire view has
// none. Called with s.mu held.
func (s *Session) refusalLocked() string {
	for _, p := range s.packets {
		if p.Outbound && p.AETH != nil && p.AETH.Syndrome&0xE0 == verbs.SyndromeNAKPSNSeqErr {
			return verbs.SyndromeName(p.AETH.Syndrome)
		}
	}
	return ""
}
