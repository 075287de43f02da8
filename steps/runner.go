package steps

import (
	"context"
	"time"
)

// Runner is what a front end drives: a tour it steps through and looks
// at. *Session runs one live; record.Player plays a recording of one. The
// TUI, the plain runner and the recorder take a Runner.
type Runner interface {
	// Config is the side's configuration (defaults applied); Steps its
	// tour.
	Config() Config
	Steps() []Step
	// Next is the index of the next step (len(Steps()) when finished);
	// Done says the tour ended, and whether it failed.
	Next() int
	Done() (done, failed bool)
	// RunNext runs (or plays) the next step; Close tears down and
	// returns the C calls it made, one per line.
	RunNext(ctx context.Context) (Outcome, error)
	Close() (string, error)
	// Sample notes what changed on the device since the last sample;
	// Snapshot copies the state as of the last sample, writing nothing.
	Sample(now time.Time)
	Snapshot() Snapshot
	// StepSnapshot is the state right after step i, PeerSnapshot the
	// other side's then (a demo); ok false when there is none.
	StepSnapshot(i int) (Snapshot, bool)
	PeerSnapshot(i int) (Snapshot, bool)
	// WaitFor says what the peer must do for step idx to end.
	WaitFor(idx int) (PeerWait, bool)
	// Prediction is the lesson's question (nil: none); Predict records
	// the learner's pick, SkipPrediction asks nothing (--auto).
	Prediction() *PredictionState
	Predict(choice int) error
	SkipPrediction()
	// Replaying says the tour is a recording (no device, no peer).
	Replaying() bool
}

var _ Runner = (*Session)(nil)

// Replaying is false: a Session runs live (record.Player replays).
func (s *Session) Replaying() bool { return false }
