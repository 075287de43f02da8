package steps_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// TestServerFetchesDisconnectedOnce: in the read and atomic tours the
// server's wait step already takes the client's DISCONNECTED event, so the
// C pane must not show a second rdma_get_cm_event for it in Disconnect (a
// real program would block there forever). Issue 19, review #24.
func TestServerFetchesDisconnectedOnce(t *testing.T) {
	for _, tour := range []steps.TourKind{steps.TourRead, steps.TourAtomic, steps.TourWrite} {
		t.Run(tour.String(), func(t *testing.T) {
			p := newTourPair(t, tour, tour, steps.NotifySend, "", "", 0)
			var screen []string
			for i, turn := range p.plan {
				s := p.sessions[turn.Side]
				if s.Next() > turn.Index {
					continue
				}
				out, err := s.RunNext(context.Background())
				if err != nil {
					t.Fatalf("turn %d %s: %v", i, turn.Side, err)
				}
				if turn.Side == steps.Server {
					screen = append(screen, out.Call)
				}
			}
			n := 0
			for _, call := range screen {
				for _, line := range strings.Split(call, "\n") {
					if strings.Contains(line, "rdma_get_cm_event") && strings.Contains(line, "DISCONNECTED") {
						n++
					}
				}
			}
			if n > 1 {
				t.Errorf("server's C pane fetches DISCONNECTED %d times:\n%s", n, strings.Join(screen, "\n----\n"))
			}
		})
	}
}
