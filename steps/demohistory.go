package steps

import (
	"sync"
	"time"
)

// Demo history: in the one-terminal demo a step of one side changes the
// other side too (the client's RDMA WRITE lands in the server's buffer,
// its connect moves the server's CM id). A side's own history (history.go)
// only holds its state after its own steps, so looking back at the
// client's WRITE would show the server as it was after its previous step,
// buffer still empty. So linked sessions also keep, for each step, the
// other side's state right after it (PeerSnapshot), and a recording
// carries it (StepRecord.Peer, PlayedStep.Peer).
//
// "Right after" is taken as late as it still means that step: when the
// next step of either side starts, or at teardown; or, when the next
// step polls the same side's CQ, when that poll ends (see sealDemo). The
// WRITE's bytes reach the server's memory asynchronously (rxe's tasklet,
// the simulated NIC's socket), a moment after ibv_post_send returned;
// the live screen shows them, so history must too. Until it is sealed
// the step is pending: PeerSnapshot reads the peer live, and its record
// line is written when it is sealed.

// demoLink is what two linked sessions share: the latest finished step,
// not yet sealed. Lock order: demoLink.mu before any Session.mu.
type demoLink struct {
	mu      sync.Mutex
	pending *pendingStep
}

// pendingStep is a finished step whose peer state is not sealed yet.
type pendingStep struct {
	s   *Session
	rec StepRecord
}

// LinkDemo makes a and b each other's peer, before the first step: from
// then on every finished step of one also keeps the other's state
// (PeerSnapshot). Linking the same pair again is harmless. Only live
// Sessions are linked: a replay's peer states come from the recording.
func LinkDemo(ra, rb Runner) {
	a, okA := ra.(*Session)
	b, okB := rb.(*Session)
	if !okA || !okB || a == b {
		return
	}
	if p, _ := a.linked(); p == b {
		return
	}
	link := &demoLink{}
	for _, pair := range [][2]*Session{{a, b}, {b, a}} {
		pair[0].demoSide.join(pair[1], link)
	}
}

// linked is s's peer and link (nil, nil when not linked).
func (s *Session) linked() (*Session, *demoLink) { return s.demoSide.linked() }

// PeerSnapshot returns the peer's state right after this session's step
// i; ok is false when there is none (not a demo, a recording made before
// peer states were recorded, or step i has not finished). The progress
// fields (Steps, Next, Done, ...) of a replayed peer state are empty: the
// peer's own history has them.
func (s *Session) PeerSnapshot(i int) (snap Snapshot, ok bool) {
	if peer, link := s.linked(); link != nil {
		link.mu.Lock()
		defer link.mu.Unlock()
		if p := link.pending; p != nil && p.s == s && p.rec.Index == i {
			return peer.keptState(), true
		}
	}
	return s.demoSide.peerAfter(i)
}

// keptState is the session's state as a history keeps it (PeerSnapshot
// of a pending step: a read, it samples nothing).
func (s *Session) keptState() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.historySnapshot()
}

// sealedState is keptState sampled as of now, for sealing into the peer's
// history: the session ran no step of its own to sample what the peer's
// step did to it.
func (s *Session) sealedState() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sampleLocked(time.Now())
	return s.historySnapshot()
}

// finished makes rec, a step of s that just finished, the pending one
// (sealing the previous first, should both sides' steps overlap).
func (l *demoLink) finished(s *Session, rec StepRecord) {
	l.seal()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = &pendingStep{s: s, rec: rec}
}

// seal keeps the peer's state for the pending step and writes its record
// line. Called before a step of either side starts, and at teardown.
func (l *demoLink) seal() {
	l.mu.Lock()
	p := l.pending
	l.pending = nil
	if p == nil {
		l.mu.Unlock()
		return
	}
	peer, _ := p.s.linked()
	snap := peer.sealedState()
	p.s.demoSide.keepPeer(p.rec.Index, len(p.s.tour), &snap)
	l.mu.Unlock()
	if r := p.s.cfg.Recorder; r != nil {
		p.rec.Peer = &snap
		r.Step(p.rec)
	}
}

// sealDemo seals the pending step of s's demo, if linked: s is about to
// run its next step, or to tear down (next false).
//
// A poll of s's own CQ right after s's pending step does not seal it:
// polling sends the peer nothing, and the poll waits for the very
// completion that says the pending step's work reached the peer (the
// WRITE's ACK comes after its bytes landed). So the peer's state taken
// when the poll ends is the pending step's effect, whatever the pace of
// the keys (--auto presses them back to back); finished seals it then.
func (s *Session) sealDemo(next bool) {
	_, link := s.linked()
	if link == nil {
		return
	}
	s.mu.Lock()
	poll := next && s.next < len(s.tour) && s.tour[s.next].pollsOwnCQ()
	s.mu.Unlock()
	link.mu.Lock()
	mine := link.pending != nil && link.pending.s == s
	link.mu.Unlock()
	if poll && mine {
		return
	}
	link.seal()
}
