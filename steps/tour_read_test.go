package steps_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// newTourPair is a pair whose server and client run the given tours.
func newTourPair(t *testing.T, srvTour, cliTour steps.TourKind, n steps.Notify, msg, lesson string, rnr uint8) *pair {
	t.Helper()
	cfg := steps.Config{Notify: n, Message: msg, Lesson: lessonNamed(lesson), RNRRetry: rnr}
	srv, cli := cfg, cfg
	srv.Tour, cli.Tour = srvTour, cliTour
	return newPairOfEach(t, srv, cli)
}

func TestReadTourOnSimulatedNIC(t *testing.T) {
	p := newTourPair(t, steps.TourRead, steps.TourRead, steps.NotifySend, "", "", 0)
	var ids []string
	for _, turn := range p.plan {
		ids = append(ids, turn.Side.String()+":"+string(p.sessions[turn.Side].Steps()[turn.Index].ID))
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
		{Tour: steps.TourRead, Lesson: lessonNamed("bad-rkey")},
		{Tour: steps.TourRead, Track: steps.TrackManual},
		{Tour: steps.TourUD, Lesson: lessonNamed("no-remote-read")},
		{Tour: steps.TourAtomic, Lesson: lessonNamed("no-remote-read")},
		{Tour: steps.TourKind(9)},
	} {
		var ce *steps.ConfigError
		if err := cfg.Validate(); !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a ConfigError", cfg, err)
		}
	}
}

// TestTourMismatchIsExplained: a read-tour server and a write-tour client
// connect (the hello carries each side's tour), each side's screen says
// what the mismatch does to it, and the client's WRITE is refused: the
// read tour's buffer allows REMOTE_READ only.
func TestTourMismatchIsExplained(t *testing.T) {
	p := newTourPair(t, steps.TourRead, steps.TourWrite, steps.NotifySend, "written over", "", 0)
	notes := map[steps.Role]string{}
	for _, turn := range p.plan {
		s := p.sessions[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		id := s.Steps()[turn.Index].ID
		out, err := s.RunNext(context.Background())
		if err != nil && turn.Side == steps.Client && id == steps.IDPollWrite {
			// The read tour's server grants REMOTE_READ only: the WRITE is
			// refused, and the error says why.
			if !strings.Contains(err.Error(), "remote access error") || !strings.Contains(err.Error(), "REMOTE_READ only") {
				t.Errorf("client's WRITE: %v", err)
			}
			break
		}
		if err != nil {
			t.Fatalf("%s %s: %v", turn.Side, id, err)
		}
		if strings.Contains(out.Note.EN, "Mismatch") {
			notes[turn.Side] += out.Note.EN
		}
	}
	if !strings.Contains(notes[steps.Server], "The client's WRITE fails with remote access error") {
		t.Errorf("server's mismatch note: %q", notes[steps.Server])
	}
	if !strings.Contains(notes[steps.Client], "the read tour's server registers its buffer with REMOTE_READ only") {
		t.Errorf("client's mismatch note: %q", notes[steps.Client])
	}
	if pt := p.cli.PeerInfo(); pt.Hello.Tour != steps.TourRead {
		t.Errorf("client learned peer tour %s, want read", pt.Hello.Tour)
	}
}

func TestAtomicTourOnSimulatedNIC(t *testing.T) {
	p := newTourPair(t, steps.TourAtomic, steps.TourAtomic, steps.NotifySend, "", "", 0)
	p.runTurns(t, -1)
	for _, s := range []*steps.Session{p.srv, p.cli} {
		if done, failed := s.Done(); !done || failed {
			t.Fatalf("%s: done=%v failed=%v", s.Config().Role, done, failed)
		}
	}
	want := []string{"fetch_add old=40, cmp_swap old=42", "counter=1000"}
	for i, s := range []*steps.Session{p.cli, p.srv} {
		if r := s.Snapshot().Result; r == nil || string(r.Message) != want[i] {
			t.Errorf("%s result %+v, want %q", s.Config().Role, r, want[i])
		}
	}
	checkOps(t, "client", p.cli.Snapshot(), []verbs.WCOpcode{verbs.WCFetchAdd, verbs.WCCompSwap})
	checkOps(t, "server", p.srv.Snapshot(), nil)
	var ops []string
	for _, w := range p.cli.Snapshot().Packets {
		if w.AtomicETH != nil || w.AtomicAck != nil {
			ops = append(ops, verbs.OpcodeName(w.Opcode))
		}
	}
	if strings.Join(ops, " ") != "FETCH_ADD ATOMIC_ACKNOWLEDGE COMPARE_SWAP ATOMIC_ACKNOWLEDGE" {
		t.Errorf("wire: %v", ops)
	}
}
