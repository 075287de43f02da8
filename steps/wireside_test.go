package steps_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestDemoSidesShowTheirOwnWire: in the demo both sides share one
// simulated NIC. Each side lists only its own QP's packets, in the
// direction it saw them (the server receives the WRITE, the client sends
// it), and counts only its own QP's traffic: what one side sent, the
// other received, and each side's counts match its own packet list.
func TestDemoSidesShowTheirOwnWire(t *testing.T) {
	nic := sim.New(sim.Options{})
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Notify: steps.NotifySend, Provider: nic,
		Bind: netip.AddrPortFrom(loopback, 0), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	for range 4 { // up to listen: the client needs the port
		if _, err := srv.RunNext(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	addr, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Notify: steps.NotifySend, Provider: nic,
		Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	sessions := map[steps.Role]*steps.Session{steps.Server: srv, steps.Client: cli}
	for _, turn := range steps.DemoPlan(srv.Steps(), cli.Steps()) {
		s := sessions[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		id := s.Steps()[turn.Index].ID
		if _, err := s.RunNext(context.Background()); err != nil {
			t.Fatalf("%s %s: %v", turn.Side, id, err)
		}
		if turn.Side == steps.Server && id == "wait-notify" {
			break // every packet of the tour's data path has been seen
		}
	}
	ss, cs := srv.Snapshot(), cli.Snapshot()

	dirs := func(snap steps.Snapshot, op uint8) (in, out int) {
		for _, p := range snap.Packets {
			if p.Opcode != op {
				continue
			}
			if p.Outbound {
				out++
			} else {
				in++
			}
		}
		return in, out
	}
	for _, c := range []struct {
		name            string
		snap            steps.Snapshot
		op              uint8
		wantIn, wantOut int
	}{
		{"server WRITE", ss, verbs.OpRDMAWriteOnly, 1, 0},
		{"client WRITE", cs, verbs.OpRDMAWriteOnly, 0, 1},
		{"server SEND", ss, verbs.OpSendOnly, 1, 0},
		{"client SEND", cs, verbs.OpSendOnly, 0, 1},
	} {
		if in, out := dirs(c.snap, c.op); in != c.wantIn || out != c.wantOut {
			t.Errorf("%s: %d in, %d out; want %d in, %d out", c.name, in, out, c.wantIn, c.wantOut)
		}
	}
	if in, out := dirs(ss, verbs.OpAcknowledge); in != 0 || out == 0 {
		t.Errorf("server ACKs: %d in, %d out; want only out", in, out)
	}
	if in, out := dirs(cs, verbs.OpAcknowledge); out != 0 || in == 0 {
		t.Errorf("client ACKs: %d in, %d out; want only in", in, out)
	}

	if !ss.CountersPerQP || !cs.CountersPerQP {
		t.Fatalf("counters per QP: server %v, client %v; the simulated NIC counts per QP", ss.CountersPerQP, cs.CountersPerQP)
	}
	sc, cc := ss.Counters, cs.Counters
	if sc["sent_pkts"] == 0 || cc["sent_pkts"] == 0 {
		t.Fatalf("sent_pkts: server %d, client %d; both sent packets", sc["sent_pkts"], cc["sent_pkts"])
	}
	if sc["sent_pkts"] != cc["rcvd_pkts"] || cc["sent_pkts"] != sc["rcvd_pkts"] {
		t.Errorf("server sent %d, received %d; client sent %d, received %d: one's sent is the other's received",
			sc["sent_pkts"], sc["rcvd_pkts"], cc["sent_pkts"], cc["rcvd_pkts"])
	}
	// Counted per side: each side's counters match its own packet list
	// (the port's counters would count both sides' packets).
	for _, side := range []struct {
		name string
		snap steps.Snapshot
	}{{"server", ss}, {"client", cs}} {
		var in, out uint64
		for _, p := range side.snap.Packets {
			if p.Outbound {
				out++
			} else {
				in++
			}
		}
		if c := side.snap.Counters; c["sent_pkts"] != out || c["rcvd_pkts"] != in {
			t.Errorf("%s: sent_pkts %d, rcvd_pkts %d; its packet list has %d out, %d in",
				side.name, c["sent_pkts"], c["rcvd_pkts"], out, in)
		}
	}
}

// TestServerTimelineShowsTheWriteLanding: on the server, which runs no
// step while the client's WRITE arrives, the timeline still shows it,
// and says that no CPU and no completion are involved on this side.
func TestServerTimelineShowsTheWriteLanding(t *testing.T) {
	p := newPair(t, steps.NotifySend, "")
	p.runTurns(t, -1)
	var got *steps.TimelineEntry
	for _, e := range p.srv.Snapshot().Timeline {
		if e.Label == "RDMA WRITE" {
			got = &e
		}
	}
	if got == nil {
		t.Fatal("the server's timeline has no RDMA WRITE")
	}
	if got.FromServer || !strings.Contains(got.Detail, "no CPU, no completion on the server") || got.DetailZH == "" {
		t.Errorf("server's WRITE entry %+v: want client → server, saying no CPU, no completion, in both languages", *got)
	}
}

// TestLessonTimelineShowsTheNAK: in the bad-rkey lesson both sides'
// timelines show the NAK the server's NIC sent.
func TestLessonTimelineShowsTheNAK(t *testing.T) {
	p := newLessonPair(t, steps.NotifySend, "", "bad-rkey", 0)
	p.runTurns(t, -1)
	for name, s := range map[string]*steps.Session{"server": p.srv, "client": p.cli} {
		found := false
		for _, e := range s.Snapshot().Timeline {
			if strings.HasPrefix(e.Label, "NAK") && e.FromServer {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no NAK from the server on the timeline: %+v", name, s.Snapshot().Timeline)
		}
	}
}

// TestDoorbellIsOneMessage: in doorbell mode the server's timeline has
// the two WRITEs that arrived (message, flag) and no third entry for its
// CPU seeing the flag: that is said on the flag's WRITE.
func TestDoorbellIsOneMessage(t *testing.T) {
	p := newPair(t, steps.NotifyDoorbell, "")
	p.runTurns(t, -1)
	var writes []steps.TimelineEntry
	for _, e := range p.srv.Snapshot().Timeline {
		if e.Label == "RDMA WRITE" {
			writes = append(writes, e)
		}
	}
	if len(writes) != 2 || !strings.Contains(writes[1].Detail, "doorbell = 1") {
		t.Errorf("server's WRITEs: %+v; want two, the second saying the CPU saw doorbell = 1", writes)
	}
}
