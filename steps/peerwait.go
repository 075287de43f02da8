package steps

import (
	"context"
	"time"

	"github.com/rdmatour/rdmatour/text"
)

// Waiting on the peer at human pace.
//
// In an interactive run the other side is driven by a person who may be
// reading a page, so a wait on the peer has no time bound of its own: it
// ends when the peer does its part, when the peer vanishes (the CM posts
// DISCONNECTED, REJECTED or CONNECT_ERROR; the NIC's retries run out) or
// when one of the protocol's own timers fires. Those timers are rdma_cm's,
// not ours: measured on Soft-RoCE (docs/*/waiting.md), the passive side's
// CM answers a REQ it has handed to the application with an MRA ("message
// received, the application is deciding"), which stretches the
// requester's timer to minutes, and the active side does the same for a
// REP whose event the application has not fetched yet.
//
// --auto runs (and runs whose input is not a terminal) keep Config.Timeout
// on every wait: nobody is there to notice a hung peer.

// peerWaitBound is the time limit of a wait on the peer: none (0) in an
// interactive run, Config.Timeout otherwise.
func (s *Session) peerWaitBound() time.Duration {
	if s.cfg.Interactive {
		return 0
	}
	return s.cfg.Timeout
}

// boundPeerWait is ctx limited by peerWaitBound.
func (s *Session) boundPeerWait(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := s.peerWaitBound(); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// PeerWait is what the other side must do for a waiting step to end,
// taken from the tour plan: the furthest step of the peer's tour that the
// waiting step names in Step.After.
type PeerWait struct {
	// Peer is the other side's role.
	Peer Role
	// Index is the peer's step (into its tour); Step is that step.
	Index int
	Step  Step
	// Timer says which of the protocol's timers still runs during the
	// wait, and what it does (concept-waiting).
	Timer text.Text
	// Command starts the peer, while it has not shown up (a server no
	// client has reached yet); empty otherwise.
	Command text.Text
}

// PeerTour is the tour the other side runs when it is started with the
// same options (notify mode, track, lesson), as the tours require.
func (s *Session) PeerTour() []Step { return append([]Step(nil), s.peerPlan...) }

// peerTourFor is the tour the other side of cfg runs (computed once, by
// NewSession: a front end asks WaitFor on every frame while a key waits).
func peerTourFor(cfg Config) []Step {
	if cfg.Role == Client {
		cfg.Role = Server
	} else {
		cfg.Role = Client
	}
	tour, err := tourFor(cfg)
	if err != nil {
		return nil // TestEveryLessonOnEveryTour: both sides of every lesson build
	}
	return tour
}

// WaitFor says what the peer must do for step idx of this side to end;
// ok is false when the step does not wait on the peer (it waits on the
// network only, or not at all).
func (s *Session) WaitFor(idx int) (w PeerWait, ok bool) {
	if idx < 0 || idx >= len(s.tour) {
		return PeerWait{}, false
	}
	s.mu.Lock() // adoptPeerExpectations edits the tour's steps under it
	st := s.tour[idx]
	cmd := s.peerCommand
	for _, done := range s.tour[:s.next] {
		if done.Reaches(MilestoneRequested) {
			cmd = text.Text{} // its connect request came: the peer is there
		}
	}
	s.mu.Unlock()
	w, ok = WaitIn(st, s.cfg.Role, s.peerPlan)
	w.Command = cmd
	return w, ok
}

// WaitIn says what the peer, running peerTour, must do for step st of
// role's side to end (WaitFor for a tour that is not a Session's: a
// replay of a recorded one).
func WaitIn(st Step, role Role, peerTour []Step) (w PeerWait, ok bool) {
	if !st.Waits {
		return PeerWait{}, false
	}
	w, ok = peerWaitIn(st, peerTour)
	w.Timer = handshakeTimer(st, role)
	return w, ok
}

// handshakeTimer explains the CM's timer behind a wait inside the
// handshake (measured on rxe; see docs concept-waiting), or says there
// is none.
func handshakeTimer(st Step, role Role) text.Text {
	inHandshake := st.Reaches(MilestoneHandshakeWait)
	switch {
	case role == Client && inHandshake:
		return text.Text{EN: "No rush: the server's CM answers each repeated REQ with an MRA (\"the application is deciding\", about 67 s of grace each); only after about 17 min would rdma_cm give up with RDMA_CM_EVENT_UNREACHABLE.",
			ZH: "不用急：server 的 CM 对每次重发的 REQ 都回一个 MRA（「应用还在考虑」，每次宽限约 67 秒）；大约 17 分钟后 rdma_cm 才会放弃，报 RDMA_CM_EVENT_UNREACHABLE。"}
	case role == Server && inHandshake:
		return text.Text{EN: "No rush: the RTU leaves when the client fetches its event, and until then the client's CM answers each repeated REP with an MRA; only after about 17 min would rdma_cm give up with RDMA_CM_EVENT_UNREACHABLE.",
			ZH: "不用急：client 取走自己的事件时才发出 RTU，在那之前 client 的 CM 对每次重发的 REP 都回一个 MRA；大约 17 分钟后 rdma_cm 才会放弃，报 RDMA_CM_EVENT_UNREACHABLE。"}
	}
	return text.Text{EN: "No timer runs here: this waits for as long as the peer is there.", ZH: "这里没有定时器：只要对端还在，就一直等下去。"}
}

// peerWaitIn finds the peer's step that ends st's wait: the furthest
// step of peer that st names in After, or the post before it when that
// step only polls the peer's own CQ. Polling is local: it sends this side
// nothing (the demo orders the server's wait-notify after the client's
// poll-notify, yet the client's SEND, one step earlier, is what ends it).
func peerWaitIn(st Step, peer []Step) (PeerWait, bool) {
	best := -1
	for _, id := range st.After {
		for i, ps := range peer {
			if ps.ID == id && i > best {
				best = i
			}
		}
	}
	if best < 0 {
		return PeerWait{}, false
	}
	for best > 0 && peer[best].pollsOwnCQ() {
		best--
	}
	return PeerWait{Peer: peer[best].Side, Index: best, Step: peer[best]}, true
}

// pollsOwnCQ says st waits for completions on its side's own CQ: it
// reads them and sends the peer nothing.
func (st Step) pollsOwnCQ() bool { return st.Waits && st.Section == SectionCQ }
