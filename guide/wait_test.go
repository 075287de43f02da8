package guide_test

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// The note for a key pressed during a wait names the peer's step from
// the tour plan, in both languages; a wait on the network names none.
func TestWaitNoteNamesThePeersStep(t *testing.T) {
	loopback := netip.MustParseAddr("127.0.0.1")
	for _, role := range []steps.Role{steps.Server, steps.Client} {
		s, err := steps.NewSession(steps.Config{Role: role, Provider: sim.New(sim.Options{}),
			Bind: netip.AddrPortFrom(loopback, 0), Server: netip.AddrPortFrom(loopback, 7471)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		waits := 0
		for i := range s.Steps() {
			w, ok := s.WaitFor(i)
			if !ok {
				continue
			}
			waits++
			note := guide.WaitNote(w, true)
			step := fmt.Sprintf("step %d", w.Index+1)
			if !strings.Contains(note.EN, w.Peer.String()) || !strings.Contains(note.EN, step) || !strings.Contains(note.ZH, fmt.Sprintf("第 %d 步", w.Index+1)) {
				t.Errorf("%s step %d: WaitNote does not name the peer's step: %+v", role, i+1, note)
			}
		}
		if waits == 0 {
			t.Errorf("%s: no step waits on the peer", role)
		}
	}
	if note := guide.WaitNote(steps.PeerWait{}, false); !strings.Contains(note.EN, "network") || note.ZH == "" {
		t.Errorf("network wait: %+v", note)
	}
}
