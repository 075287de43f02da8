package steps

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Every step of every tour and track names the live-state section it
// changes (teardown changes them all), so a front end needs no step IDs.
func TestEveryStepHasASection(t *testing.T) {
	tours := map[string][]Step{"server": serverTour()}
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		tours["client/"+n.String()] = clientTour(n)
		tours["manual client/"+n.String()] = manualTour(Client, n)
	}
	tours["manual server"] = manualTour(Server, NotifySend)
	for name, tour := range tours {
		for _, st := range tour {
			if (st.Section == SectionNone) != (st.ID == "teardown") {
				t.Errorf("%s: step %s has section %s", name, st.ID, st.Section)
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range Sections() {
		if s == SectionNone || seen[s.String()] || s.String() == "none" {
			t.Errorf("section %d: name %q", s, s)
		}
		seen[s.String()] = true
	}
}

// The listener says "listening" once rdma_listen has succeeded, on every
// track, whatever the listen step's position.
func TestSnapshotListening(t *testing.T) {
	for _, track := range []Track{TrackCM, TrackManual} {
		s, err := NewSession(Config{Role: Server, Provider: sim.New(sim.Options{}), Track: track,
			Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for s.Snapshot().Steps[s.Next()].ID != "listen" {
			if _, err := s.RunNext(context.Background()); err != nil {
				t.Fatal(err)
			}
			if c := s.Snapshot().CMID; c != nil && c.Listening {
				t.Errorf("%s: listening before rdma_listen", track)
			}
		}
		if _, err := s.RunNext(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c := s.Snapshot().CMID; c == nil || !c.Listening {
			t.Errorf("%s: not listening after rdma_listen: %+v", track, c)
		}
		s.Close()
	}
}
