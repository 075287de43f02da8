package steps

import (
	"context"
	"testing"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestTeardownCountsThisSideOnly: in the demo both sides share one
// provider; the server, which releases first, must not count the
// client's objects as its own leftovers (the ux review's
// "live objects left = 9").
func TestTeardownCountsThisSideOnly(t *testing.T) {
	for _, tour := range []TourKind{TourWrite, TourRead, TourAtomic, TourUD} {
		t.Run(tour.String(), func(t *testing.T) {
			nic := sim.New(sim.Options{})
			sides, err := RunPair(context.Background(), Config{Tour: tour}, nic, nic)
			if err != nil {
				t.Fatal(err)
			}
			for role, s := range sides {
				last := s.outcomes[len(s.tour)-1]
				if last == nil {
					t.Fatalf("%s: the teardown did not run", role)
				}
				got := ""
				for _, kv := range last.Results {
					if kv.Name == resLiveObjectsLeft {
						got = kv.Value.EN
					}
				}
				if got != "0" {
					t.Errorf("%s: live objects left = %q, want 0 (this side's only)", role, got)
				}
			}
			if n := nic.Live().Total(); n != 0 {
				t.Errorf("the shared provider still holds %d objects", n)
			}
		})
	}
}
