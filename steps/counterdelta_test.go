package steps_test

import (
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// TestCounterDeltasCoverTheGaps: what moved "in this step" starts where
// the previous step's snapshot ended, so a packet that arrives while the
// learner reads (the ACK of a WRITE whose post has returned, a peer's
// packets) is counted in the next step instead of lost between them.
// Each step's delta is its counters less the previous step's, exactly.
func TestCounterDeltasCoverTheGaps(t *testing.T) {
	p := newPair(t, steps.NotifySend, "gaps")
	p.pauseAfter = func(steps.Role, steps.StepID) { time.Sleep(20 * time.Millisecond) }
	p.runTurns(t, -1)
	for _, s := range []*steps.Session{p.srv, p.cli} {
		compared := 0
		for i := 1; i < len(s.Steps()); i++ {
			prev, ok1 := s.StepSnapshot(i - 1)
			cur, ok2 := s.StepSnapshot(i)
			if !ok1 || !ok2 || prev.Counters == nil || cur.Counters == nil || prev.CountersPerQP != cur.CountersPerQP {
				continue
			}
			compared++
			for k, v := range cur.Counters {
				want := uint64(0)
				if b, ok := prev.Counters[k]; ok && v > b {
					want = v - b
				}
				if got := cur.CounterDelta[k]; got != want {
					t.Errorf("%s step %d %s: %s moved %d in the step, want %d (from %d at the previous step's end to %d)",
						s.Config().Role, i, s.Steps()[i].ID, k, got, want, prev.Counters[k], v)
				}
			}
		}
		if compared < 5 {
			t.Errorf("%s: only %d steps with counters to compare", s.Config().Role, compared)
		}
	}
}
