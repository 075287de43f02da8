package record

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
)

// Replay is a recorded session (Decode reads it from a --record file).
// NewPlayer plays it back: RunNext returns the recorded outcome of the
// next step, Snapshot the state recorded after it, Close the recorded
// teardown. No device is opened and no peer is needed, so a tour recorded
// on Soft-RoCE can be presented on a laptop without RDMA.
type Replay struct {
	// Config is the recorded side's configuration (Role, Notify, Track,
	// Lesson, Bind/Server); Provider and Recorder are ignored.
	Config steps.Config
	// Initial is the state before the first step (it names the backend).
	Initial steps.Snapshot
	// Tour is the tour as it was recorded. When this rdmatour builds a
	// different tour for the same configuration (another version), the
	// replay follows the recorded one; nil means this rdmatour's.
	Tour []steps.PlanStep
	// Steps are the finished steps, in order; only the last may have
	// failed.
	Steps []PlayedStep
	// Teardown is what Close printed (C calls, one per line) and its
	// error; Final is the state after it.
	Teardown    string
	TeardownErr *steps.RecordedError
	Final       steps.Snapshot
}

// PlayedStep is one recorded step.
type PlayedStep struct {
	ID      steps.StepID
	Outcome steps.Outcome
	// Err is what RunNext returned (nil: success, or the lesson's
	// expected failure).
	Err *steps.RecordedError
	// Snapshot is the state right after the step; its Steps field is
	// rebuilt on replay and may be left empty.
	Snapshot steps.Snapshot
	// Peer is the other side's state right after the step (a demo
	// recording, format version 2 on); nil if not recorded.
	Peer *steps.Snapshot
	// Shown is the C the step showed before it ran ("" in older files:
	// the tour's Call).
	Shown string
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

// NewPlayer checks that r fits the tour its configuration names and
// returns a Player that plays it.
func NewPlayer(r Replay) (*Player, error) {
	cfg := r.Config
	cfg.Provider = replayProvider{name: r.Initial.Backend, simulated: r.Initial.Simulated}
	cfg.BackendWhy = r.Initial.Why
	cfg.Recorder = nil
	// An unrun Session is the tour this rdmatour builds for cfg, with
	// its question and the peer's plan; it allocates nothing.
	plan, err := steps.NewSession(cfg)
	if err != nil {
		return nil, err
	}
	tour, ownTour := plan.Steps(), true
	if r.Tour != nil && !sameIDs(r.Tour, tour) {
		tour, ownTour = steps.DescribedTour(cfg.Role, r.Tour), false
	}
	if err := checkSteps(r.Steps, tour); err != nil {
		return nil, err
	}
	p := &Player{rec: r, plan: plan, ownTour: ownTour}
	p.prog = newProgress(plan.Config(), append([]steps.Step(nil), tour...))
	p.prog.showNext(r.Steps)
	return p, nil
}

// checkSteps says whether the recorded steps are the tour's, in order,
// with only the last failed.
func checkSteps(played []PlayedStep, tour []steps.Step) error {
	if len(played) > len(tour) {
		return &ReplayError{Step: len(tour), Reason: fmt.Sprintf("the recording has %d steps, the tour %d", len(played), len(tour))}
	}
	for i, p := range played {
		if p.ID != tour[i].ID {
			return &ReplayError{Step: i, Reason: fmt.Sprintf("is %q, but this tour's step %d is %q ", p.ID, i+1, tour[i].ID)}
		}
		if p.Err != nil && i != len(played)-1 {
			return &ReplayError{Step: i, Reason: "failed, yet later steps were recorded after it"}
		}
	}
	return nil
}

func sameIDs(plan []steps.PlanStep, tour []steps.Step) bool {
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
