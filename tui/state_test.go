package tui

import (
	"net/netip"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// On every track, after each step the live state is anchored at the
// section the step declares (when that section is on screen at all).
func TestStateAnchorEveryTrack(t *testing.T) {
	for _, track := range []steps.Track{steps.TrackCM, steps.TrackManual} {
		port := freePort(t)
		addr := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)
		srv, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{}), Track: track, Bind: addr, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		cli, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Track: track, Server: addr, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close(); cli.Close() })
		m := newTestModel(t, []steps.Runner{srv, cli}, text.EN, 160, 50)
		// Long after any byte changed: the step's own section counts.
		m.now = func() time.Time { return time.Now().Add(time.Hour) }
		anchored := 0
		for i := 0; m.planPos < len(m.plan); i++ {
			if i > 100 || m.end.err != nil {
				t.Fatalf("%s: stuck: %v", track, m.end.err)
			}
			press(t, m, "enter")
			side, idx := m.run.lastSide, m.run.lastIdx
			st := m.tours[side][idx]
			lines, anchor := m.stateLinesAnchored(side, 70)
			want := pane.SectionTitle(st.Section, m.snaps[side].Role).EN
			present := false
			for _, l := range lines {
				present = present || ansi.Strip(l) == want
			}
			switch {
			case st.Section == steps.SectionNone || !present:
				if anchor != -1 && st.Section == steps.SectionNone {
					t.Errorf("%s/%s: anchored at %d with no section", track, st.ID, anchor)
				}
			case anchor < 0 || ansi.Strip(lines[anchor]) != want:
				t.Errorf("%s/%s: anchor %d, want the %q section", track, st.ID, anchor, want)
			default:
				anchored++
			}
		}
		if n := len(m.plan); anchored < n*2/3 {
			t.Errorf("%s: only %d of %d steps anchored the live state", track, anchored, n)
		}
	}
}
