package steps_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// --completion event on every RC tour and both tracks, on two simulated
// NICs: each side makes the channel before its CQ, the CQ on it, arms
// it, runs the tour to its end and frees the channel after the CQ; a
// wait that slept shows the event calls in the loop's order.
func TestCompletionEventsOnRCTours(t *testing.T) {
	cases := []steps.Config{
		{Tour: steps.TourWrite, Notify: steps.NotifySend},
		{Tour: steps.TourWrite, Notify: steps.NotifyImm},
		{Tour: steps.TourWrite, Notify: steps.NotifyDoorbell},
		{Tour: steps.TourWrite, Notify: steps.NotifySend, Track: steps.TrackManual},
		{Tour: steps.TourRead},
		{Tour: steps.TourAtomic},
	}
	for _, cfg := range cases {
		cfg.Completion = steps.CompletionEvent
		t.Run(cfg.Tour.String()+"/"+cfg.Notify.String()+"/"+cfg.Track.String(), func(t *testing.T) {
			sides, err := steps.RunPair(context.Background(), cfg, sim.New(sim.Options{}), sim.New(sim.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			for role, s := range sides {
				if done, failed := s.Done(); !done || failed {
					t.Fatalf("%s: done=%v failed=%v", role, done, failed)
				}
				var order []string
				for _, st := range s.Snapshot().Steps {
					order = append(order, st.ID)
					if st.Outcome == nil {
						continue
					}
					call := st.Outcome.Call
					if i := strings.Index(call, "ibv_get_cq_event("); i >= 0 {
						rest := call[i:]
						ack, rearm := strings.Index(rest, "ibv_ack_cq_events(ev_cq, 1)"), strings.Index(rest, "ibv_req_notify_cq(ev_cq, 0)")
						if ack < 0 || rearm < ack || !strings.Contains(rest[rearm:], "ibv_poll_cq(cq, 1, &wc)") {
							t.Errorf("%s/%s: the event wait is not get, ack, re-arm, then poll:\n%s", role, st.ID, call)
						}
					}
					if st.ID == "teardown" && !strings.Contains(call, "ibv_destroy_comp_channel(channel)") {
						t.Errorf("%s: teardown does not free the channel:\n%s", role, call)
					}
				}
				joined := strings.Join(order, " ")
				if !strings.Contains(joined, "create-comp-channel create-cq req-notify-cq") {
					t.Errorf("%s: steps %s, want create-comp-channel create-cq req-notify-cq in a row", role, joined)
				}
			}
		})
	}
	ud := steps.Config{Role: steps.Server, Tour: steps.TourUD, Completion: steps.CompletionEvent, Provider: sim.New(sim.Options{})}
	if err := ud.Validate(); err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("--completion event on the ud tour: %v, want refused", err)
	}
}
