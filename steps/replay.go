package steps

import (
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/verbs"
)

// Replay is a recorded session (the record package decodes it from a
// --record file). NewReplay turns it into a Session that plays it back:
// RunNext returns the recorded outcome of the next step, Snapshot the state
// recorded after it, Close the recorded teardown. No device is opened and
// no peer is needed, so a tour recorded on Soft-RoCE can be presented on a
// laptop without RDMA.
type Replay struct {
	// Config is the recorded side's configuration (Role, Notify, Track,
	// Lesson, Bind/Server); Provider and Recorder are ignored.
	Config Config
	// Initial is the state before the first step (it names the backend).
	Initial Snapshot
	// Tour is the tour as it was recorded. When this rdmatour builds a
	// different tour for the same configuration (another version), the
	// replay follows the recorded one; nil means this rdmatour's.
	Tour []PlanStep
	// Steps are the finished steps, in order; only the last may have
	// failed.
	Steps []PlayedStep
	// Teardown is what Close printed (C calls, one per line) and its
	// error; Final is the state after it.
	Teardown    string
	TeardownErr *RecordedError
	Final       Snapshot
}

// PlayedStep is one recorded step.
type PlayedStep struct {
	ID      StepID
	Outcome Outcome
	// Err is what RunNext returned (nil: success, or the lesson's
	// expected failure).
	Err *RecordedError
	// Snapshot is the state right after the step; its Steps field is
	// rebuilt on replay and may be left empty.
	Snapshot Snapshot
	// Peer is the other side's state right after the step (a demo
	// recording, format version 2 on); nil if not recorded.
	Peer *Snapshot
}

// PlanStep is a step of a tour as a recording keeps it: everything a
// front end shows about a step before and after it runs.
type PlanStep struct {
	ID      StepID
	Title   Text
	Call    string
	Waits   bool
	Section Section
	After   []StepID
	// Expect is what a lesson expects the step to fail with (nil: none).
	Expect *Text
}

// Plan is the tour as PlanSteps (what --record writes).
func Plan(tour []Step) []PlanStep {
	out := make([]PlanStep, 0, len(tour))
	for _, st := range tour {
		p := PlanStep{ID: st.ID, Title: st.Title, Call: st.Call, Waits: st.Waits, Section: st.Section, After: st.After}
		if st.Expect != nil {
			what := st.Expect.What
			p.Expect = &what
		}
		out = append(out, p)
	}
	return out
}

// recordedTour is the tour a recording was made with, as Steps that only
// describe (their run is never called: a replay plays outcomes).
func recordedTour(role Role, plan []PlanStep) []Step {
	out := make([]Step, 0, len(plan))
	for _, p := range plan {
		st := Step{ID: p.ID, Side: role, Title: p.Title, Call: p.Call, Waits: p.Waits, Section: p.Section, After: p.After}
		if p.Expect != nil {
			st.Expect = &Expect{What: *p.Expect, match: func(error) bool { return false }}
		}
		out = append(out, st)
	}
	return out
}

func sameIDs(plan []PlanStep, tour []Step) bool {
	if len(plan) != len(tour) {
		return false
	}
	for i := range plan {
		if plan[i].ID != tour[i].ID {
			return false
		}
	}
	return true
}

// ReplayError says a recording does not fit the tour this rdmatour builds
// for its configuration.
type ReplayError struct {
	Step   int // 0-based step index
	Reason string
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("recorded step %d: %s", e.Step+1, e.Reason)
}

// replayScript is what a replaying Session plays.
type replayScript struct {
	rec     Replay
	current *Snapshot // the state after the last played step; nil before
}

// NewReplay checks that r fits the tour its configuration names and
// returns a Session that plays it.
func NewReplay(r Replay) (*Session, error) {
	cfg := r.Config
	cfg.Provider = replayProvider{name: r.Initial.Backend, simulated: r.Initial.Simulated}
	cfg.BackendWhy = r.Initial.Why
	cfg.Recorder = nil
	s, err := NewSession(cfg)
	if err != nil {
		return nil, err
	}
	if r.Tour != nil && !sameIDs(r.Tour, s.tour) {
		s.tour = recordedTour(cfg.Role, r.Tour)
		s.outcomes, s.states = make([]*Outcome, len(s.tour)), make([]RunState, len(s.tour))
	}
	if len(r.Steps) > len(s.tour) {
		return nil, &ReplayError{Step: len(s.tour), Reason: fmt.Sprintf("the recording has %d steps, the tour %d", len(r.Steps), len(s.tour))}
	}
	for i, p := range r.Steps {
		if p.ID != s.tour[i].ID {
			return nil, &ReplayError{Step: i, Reason: fmt.Sprintf("is %q, but this tour's step %d is %q ", p.ID, i+1, s.tour[i].ID)}
		}
		if p.Err != nil && i != len(r.Steps)-1 {
			return nil, &ReplayError{Step: i, Reason: "failed, yet later steps were recorded after it"}
		}
	}
	s.replay = &replayScript{rec: r}
	s.history = make([]*Snapshot, len(s.tour))
	return s, nil
}

// replayNext plays the next recorded step. Called with runMu held.
func (s *Session) replayNext() (Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	played := s.replay.rec.Steps
	if s.done || s.closed || s.next >= len(played) {
		return Outcome{}, ErrTourOver
	}
	idx := s.next
	p := played[idx]
	out := p.Outcome
	s.outcomes[idx] = &out
	var err error
	if p.Err != nil {
		s.states[idx] = FailedState
		s.failed, s.done = true, true
		s.lastErr = out.Failure.EN
		err = p.Err.asProblem()
	} else {
		s.states[idx] = Succeeded
		s.next++
		// A recording that stops early (the learner quit) ends the replay.
		s.done = s.next == len(s.tour) || s.next == len(played)
	}
	snap := s.withSteps(p.Snapshot)
	s.history[idx] = &snap
	s.replay.current = &snap
	if p.Peer != nil {
		if s.peerHistory == nil {
			s.peerHistory = make([]*Snapshot, len(s.tour))
		}
		peer := *p.Peer
		s.peerHistory[idx] = &peer
	}
	return out, err
}

// replaySnapshot is Snapshot for a replaying session. Called with s.mu held.
func (s *Session) replaySnapshot() Snapshot {
	switch {
	case s.closed:
		return s.withSteps(s.replay.rec.Final)
	case s.replay.current != nil:
		return *s.replay.current
	}
	return s.withSteps(s.replay.rec.Initial)
}

// withSteps is snap with the tour's progress as it stands now.
func (s *Session) withSteps(snap Snapshot) Snapshot {
	now := s.snapshotSteps()
	snap.Steps, snap.Next, snap.Running = now.Steps, now.Next, false
	snap.Done, snap.Failed, snap.Err = now.Done, now.Failed, now.Err
	return snap
}

// replayTeardown returns the recorded teardown, once.
func (s *Session) replayTeardown() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", nil
	}
	s.closed, s.done = true, true
	if e := s.replay.rec.TeardownErr; e != nil {
		return s.replay.rec.Teardown, e.asProblem()
	}
	return s.replay.rec.Teardown, nil
}

// Replaying says the session plays a recording (no device, no peer).
func (s *Session) Replaying() bool { return s.replay != nil }

// errReplayNoDevice is what a replay's provider answers to any verbs call:
// a replaying Session never makes one.
var errReplayNoDevice = errors.New("a replay opens no RDMA device")

// replayProvider names the recorded backend; it opens nothing.
type replayProvider struct {
	name      string
	simulated bool
}

func (p replayProvider) Name() string                         { return p.name }
func (p replayProvider) Simulated() bool                      { return p.simulated }
func (p replayProvider) Devices() ([]verbs.DeviceInfo, error) { return nil, errReplayNoDevice }
func (p replayProvider) CreateEventChannel() (verbs.EventChannel, error) {
	return nil, errReplayNoDevice
}
func (p replayProvider) Live() verbs.ResourceCount { return verbs.ResourceCount{} }
