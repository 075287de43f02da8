package steps_test

import (
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestMeasuredRun: the measured run at the end of signal-every-nth times
// every size with the granted depth in flight, on both profiles, and the
// tour goes on to deliver its message after it (the run overwrote the
// server's buffer; the tour's own WRITE writes it again).
func TestMeasuredRun(t *testing.T) {
	for _, profile := range []sim.Profile{sim.ProfileRxe, sim.ProfileStrict} {
		t.Run(profile.String(), func(t *testing.T) {
			l, err := steps.LessonByName("signal-every-nth")
			if err != nil {
				t.Fatal(err)
			}
			cfg := steps.Config{Notify: l.Notify, Message: "measured", Lesson: &l}
			p := newPairOn(t, sim.Options{Profile: profile}, cfg, cfg)
			p.runTurns(t, -1)
			var m *steps.Measurement
			for _, st := range p.cli.Snapshot().Steps {
				if st.ID == string(steps.IDMeasureWrites) && st.Outcome != nil {
					m = st.Outcome.Measured
				}
			}
			if m == nil {
				t.Fatal("the measure-writes step ran no measurement")
			}
			if m.Depth != 7 || len(m.Points) != 4 {
				t.Fatalf("measurement %+v: want depth 7 (rxe's grant for 4) and 4 sizes", m)
			}
			for i, pt := range m.Points {
				if pt.LatencyUS <= 0 || pt.MiBps <= 0 || i > 0 && pt.Size <= m.Points[i-1].Size {
					t.Errorf("point %d: %+v", i, pt)
				}
			}
			if r := p.srv.Snapshot().Result; r == nil || r.Message.String() != "measured" {
				t.Errorf("server's result after the measured run: %+v", r)
			}
		})
	}
}
