package steps_test

import (
	"errors"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

func TestReadTourOnSimulatedNIC(t *testing.T) {
	p := newTourPair(t, steps.TourRead, steps.NotifySend, "", "", 0)
	var ids []string
	for _, turn := range p.plan {
		ids = append(ids, turn.Side.String()+":"+p.sessions[turn.Side].Steps()[turn.Index].ID)
	}
	p.runTurns(t, -1)
	for _, s := range []*steps.Session{p.srv, p.cli} {
		if done, failed := s.Done(); !done || failed {
			t.Fatalf("%s: done=%v failed=%v (plan %v)", s.Config().Role, done, failed, ids)
		}
	}
	snap := p.cli.Snapshot()
	if snap.Result == nil || string(snap.Result.Message) != steps.ServerReadMessage {
		t.Fatalf("client result %+v, want the server's message %q", snap.Result, steps.ServerReadMessage)
	}
	checkOps(t, "client", snap, []verbs.WCOpcode{verbs.WCRDMARead})
	checkOps(t, "server", p.srv.Snapshot(), nil) // a READ leaves the responder no completion
	// One request out, responses back carrying the 4096-byte buffer.
	var req, resp int
	for _, w := range snap.Packets {
		switch w.Opcode {
		case verbs.OpRDMAReadRequest:
			req++
		case verbs.OpRDMAReadRespFirst, verbs.OpRDMAReadRespMiddle, verbs.OpRDMAReadRespLast, verbs.OpRDMAReadRespOnly:
			resp++
		case verbs.OpRDMAWriteOnly, verbs.OpRDMAWriteFirst, verbs.OpSendOnly:
			t.Errorf("read tour sent %s", verbs.OpcodeName(w.Opcode))
		}
	}
	if req != 1 || resp < 1 {
		t.Errorf("wire: %d READ requests, %d responses", req, resp)
	}
	for name, nic := range map[string]verbs.Provider{"server": p.srvNIC, "client": p.cliNIC} {
		if live := nic.Live(); live.Total() != 0 {
			t.Errorf("%s leaked %+v", name, live)
		}
	}
}

func TestTourConfigRefusals(t *testing.T) {
	for _, cfg := range []steps.Config{
		{Tour: steps.TourRead, Lesson: "bad-rkey"},
		{Tour: steps.TourRead, Track: steps.TrackManual},
		{Tour: steps.TourAtomic},
		{Tour: steps.TourUD},
		{Tour: steps.TourKind(9)},
	} {
		var ce *steps.ConfigError
		if err := cfg.Validate(); !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a ConfigError", cfg, err)
		}
	}
}
