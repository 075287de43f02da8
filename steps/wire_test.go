package steps_test

import (
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// TestPacketsCarryTheirStep: the client's WRITE is filed under the step
// that posted it; on the server, which ran no step while it arrived, the
// same packet is the peer's doing.
func TestPacketsCarryTheirStep(t *testing.T) {
	p := newPair(t, steps.NotifySend, "")
	p.runTurns(t, -1)
	find := func(s *steps.Session, out bool) (steps.WirePacket, bool) {
		for _, wp := range s.Snapshot().Packets {
			if wp.Opcode == verbs.OpRDMAWriteOnly && wp.Outbound == out {
				return wp, true
			}
		}
		return steps.WirePacket{}, false
	}
	sent, ok := find(p.cli, true)
	if !ok || sent.Step != "post-write" {
		t.Errorf("client's WRITE: found %v, step %q, want post-write", ok, sent.Step)
	}
	got, ok := find(p.srv, false)
	if !ok {
		t.Fatal("the server's wire has no incoming WRITE")
	}
	if got.Step == "post-write" {
		t.Errorf("the server filed the client's WRITE under the client's step")
	}
	if w := p.srv.Snapshot().Wire; w.State != verbs.TraceSimulated {
		t.Errorf("simulated NIC's wire status = %+v", w)
	}
}
