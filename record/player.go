package record

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// Player plays a Replay: a steps.Runner whose steps return what was
// recorded. Safe for several goroutines (the TUI snapshots while a step
// "runs").
type Player struct {
	rec Replay
	// plan is an unrun Session of the recorded configuration: the
	// lesson's question (the learner predicts again) and the peer's tour.
	plan    *steps.Session
	ownTour bool // the recording's tour is the one plan builds

	mu   sync.Mutex // guards prog
	prog progress
}

var _ steps.Runner = (*Player)(nil)

// progress is how far the replay has played.
type progress struct {
	cfg          steps.Config
	tour         []steps.Step
	next         int
	done, failed bool
	closed       bool
	lastErr      string
	outcomes     []*steps.Outcome
	states       []steps.RunState
	history      []*steps.Snapshot // the state after each played step
	peerHistory  []*steps.Snapshot // the demo peer's, when recorded
	current      *steps.Snapshot   // the state after the last played step
}

// showNext gives the next step the C it showed before it ran, when it
// was edited (a session builds that C once the step is next).
func (pr *progress) showNext(played []PlayedStep) {
	if i := pr.next; i < len(played) && i < len(pr.tour) && played[i].Shown != "" {
		pr.tour[i].Call = played[i].Shown
	}
}

func newProgress(cfg steps.Config, tour []steps.Step) progress {
	return progress{cfg: cfg, tour: tour, outcomes: make([]*steps.Outcome, len(tour)),
		states: make([]steps.RunState, len(tour)), history: make([]*steps.Snapshot, len(tour))}
}

// Config returns the recorded configuration (with defaults applied).
func (p *Player) Config() steps.Config { return p.prog.cfg }

// Steps returns the tour as recorded.
func (p *Player) Steps() []steps.Step { return append([]steps.Step(nil), p.prog.tour...) }

// Next returns the index of the next step to play.
func (p *Player) Next() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.prog.next
}

// Done says the replay has ended, and whether the recorded tour failed.
func (p *Player) Done() (done, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.prog.done, p.prog.failed
}

// Replaying is true: a Player opens no device and needs no peer.
func (p *Player) Replaying() bool { return true }

// Sample does nothing: the recorded states are what was sampled live.
func (p *Player) Sample(time.Time) {}

// RunNext plays the next recorded step.
func (p *Player) RunNext(context.Context) (steps.Outcome, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := &p.prog
	played := p.rec.Steps
	if pr.done || pr.closed || pr.next >= len(played) {
		return steps.Outcome{}, steps.ErrTourOver
	}
	idx := pr.next
	ps := played[idx]
	out := ps.Outcome
	pr.outcomes[idx] = &out
	var err error
	if ps.Err != nil {
		pr.states[idx] = steps.FailedState
		pr.failed, pr.done = true, true
		pr.lastErr = out.Failure.EN
		err = ps.Err.Replayed()
	} else {
		pr.states[idx] = steps.Succeeded
		pr.next++
		// A recording that stops early (the learner quit) ends the replay.
		pr.done = pr.next == len(pr.tour) || pr.next == len(played)
		pr.showNext(played)
	}
	snap := p.withSteps(ps.Snapshot)
	pr.history[idx] = &snap
	pr.current = &snap
	if ps.Peer != nil {
		if pr.peerHistory == nil {
			pr.peerHistory = make([]*steps.Snapshot, len(pr.tour))
		}
		peer := *ps.Peer
		pr.peerHistory[idx] = &peer
	}
	return out, err
}

// Snapshot is the recorded state after the last played step (before the
// first, the initial state; after Close, the final one).
func (p *Player) Snapshot() steps.Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.prog.closed:
		return p.withSteps(p.rec.Final)
	case p.prog.current != nil:
		return *p.prog.current
	}
	return p.withSteps(p.rec.Initial)
}

// withSteps is snap with the tour's progress as it stands now. Called
// with p.mu held.
func (p *Player) withSteps(snap steps.Snapshot) steps.Snapshot {
	pr := &p.prog
	pred := p.plan.Prediction()
	snap.Steps = make([]steps.StepStatus, 0, len(pr.tour))
	for i, st := range pr.tour {
		snap.Steps = append(snap.Steps, steps.NewStepStatus(st, pr.states[i], pr.outcomes[i], pred))
	}
	snap.Next, snap.Running = pr.next, false
	snap.Done, snap.Failed, snap.Err = pr.done, pr.failed, pr.lastErr
	return snap
}

// StepSnapshot is the recorded state right after step i.
func (p *Player) StepSnapshot(i int) (steps.Snapshot, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return at(p.prog.history, i)
}

// PeerSnapshot is the other side's recorded state right after step i
// (a demo recording, format version 2 on). Its progress fields are
// empty: the peer's own history has them.
func (p *Player) PeerSnapshot(i int) (steps.Snapshot, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return at(p.prog.peerHistory, i)
}

func at(h []*steps.Snapshot, i int) (steps.Snapshot, bool) {
	if i < 0 || i >= len(h) || h[i] == nil {
		return steps.Snapshot{}, false
	}
	return *h[i], true
}

// Close returns the recorded teardown, once.
func (p *Player) Close() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.prog.closed {
		return "", nil
	}
	p.prog.closed, p.prog.done = true, true
	if e := p.rec.TeardownErr; e != nil {
		return p.rec.Teardown, e.Replayed()
	}
	return p.rec.Teardown, nil
}

// WaitFor says what the peer had to do for step idx to end.
func (p *Player) WaitFor(idx int) (steps.PeerWait, bool) {
	if p.ownTour {
		return p.plan.WaitFor(idx)
	}
	if idx < 0 || idx >= len(p.prog.tour) {
		return steps.PeerWait{}, false
	}
	return steps.WaitIn(p.prog.tour[idx], p.prog.cfg.Role, p.plan.PeerTour())
}

// Prediction is the lesson's question, asked again of whoever watches.
func (p *Player) Prediction() *steps.PredictionState { return p.plan.Prediction() }

// Predict records the watcher's pick.
func (p *Player) Predict(choice int) error { return p.plan.Predict(choice) }

// SkipPrediction asks nothing (--auto).
func (p *Player) SkipPrediction() { p.plan.SkipPrediction() }

// errReplayNoDevice is what a replay's provider answers to any verbs call:
// a Player never makes one.
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
