package steps

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// pairCase is one tour configuration run on both sides.
type pairCase struct {
	name string
	cfg  Config
}

// pairCases are every tour, lesson and track (as export-c's tests run
// them).
func pairCases() []pairCase {
	const timeout = 10 * time.Second
	var cases []pairCase
	for _, track := range []Track{TrackCM, TrackManual} {
		for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
			cases = append(cases, pairCase{track.String() + "/" + n.String(), Config{Notify: n, Track: track, Timeout: timeout}})
		}
	}
	for _, l := range Lessons() {
		cases = append(cases, pairCase{"lesson/" + l.Name, Config{Notify: l.Notify, Lesson: lessonNamed(l.Name), Timeout: timeout}})
	}
	for _, tour := range []TourKind{TourRead, TourAtomic} {
		cases = append(cases, pairCase{"tour/" + tour.String(), Config{Tour: tour, Timeout: timeout}})
	}
	cases = append(cases, pairCase{"cm/send/message-size", Config{Notify: NotifySend, MessageSize: 3000, Timeout: timeout}})
	cases = append(cases, pairCase{"ud", Config{Tour: TourUD, Timeout: timeout}})
	return cases
}

// runPair runs cfg's tour on both sides on two simulated NICs.
func runPair(t *testing.T, cfg Config) map[Role]*Session {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	sides, err := RunPair(context.Background(), cfg, sim.New(sim.Options{}), sim.New(sim.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	return sides
}

// quickTimeouts is a simulated NIC whose QPs time out after 67 ms, not
// rxe's 2.15 s: for the tests that run every lesson to read what the
// steps say, not how long a lost packet takes.
func quickTimeouts() sim.Options { return sim.Options{ACKTimeout: 14} }

// forEachStepRun runs every pair case on simulated NICs and calls f
// with each step of both sides and its outcome (nil if it did not run);
// from names the case, side and step.
func forEachStepRun(t *testing.T, f func(from string, st Step, out *Outcome)) {
	t.Helper()
	for _, tc := range pairCases() {
		sides, err := RunPair(context.Background(), tc.cfg, sim.New(quickTimeouts()), sim.New(quickTimeouts()))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, s := range sides {
			for i, st := range s.tour {
				s.mu.Lock()
				st.Call = s.shownCall(st) // what it showed before it ran
				s.mu.Unlock()
				f(fmt.Sprintf("%s %s/%s", tc.name, s.cfg.Role, st.ID), st, s.outcomes[i])
			}
		}
	}
}
