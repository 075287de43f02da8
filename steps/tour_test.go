package steps_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// pair is a server and a client session, each on its own simulated NIC,
// as two machines would be.
type pair struct {
	srv, cli         *steps.Session
	srvNIC, cliNIC   verbs.Provider
	plan             []steps.Turn
	sessions         map[steps.Role]*steps.Session
	serverListenStep int
	// pauseAfter, if set, runs after each turn: a learner taking their time.
	pauseAfter func(side steps.Role, id steps.StepID)
}

func newPair(t *testing.T, n steps.Notify, msg string) *pair {
	return newLessonPair(t, n, msg, "", 0)
}

func newLessonPair(t *testing.T, n steps.Notify, msg, lesson string, rnr uint8) *pair {
	t.Helper()
	return newPairOf(t, steps.Config{Notify: n, Message: msg, Lesson: lessonNamed(lesson), RNRRetry: rnr})
}

// newPairOf is a pair whose sides take cfg's choices (notify mode,
// message, lesson, rnr_retry_count); it fills in roles, NICs, addresses
// and the timeout. The server ignores what only a client uses.
func newPairOf(t *testing.T, cfg steps.Config) *pair {
	t.Helper()
	return newPairOfEach(t, cfg, cfg)
}

// newPairOfEach is newPairOf with each side's own choices (e.g. two
// different tours).
func newPairOfEach(t *testing.T, srvBase, cliBase steps.Config) *pair {
	t.Helper()
	return newPairOn(t, sim.Options{}, srvBase, cliBase)
}

// newPairOn is newPairOfEach on two simulated NICs made with opts (a
// profile: --nic strict).
func newPairOn(t *testing.T, opts sim.Options, srvBase, cliBase steps.Config) *pair {
	t.Helper()
	p := &pair{srvNIC: sim.New(opts), cliNIC: sim.New(opts)}
	var err error
	srvCfg := srvBase
	srvCfg.Role, srvCfg.Provider, srvCfg.Bind, srvCfg.Timeout = steps.Server, p.srvNIC, netip.AddrPortFrom(loopback, 0), 10*time.Second
	p.srv, err = steps.NewSession(srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	// The client needs the server's port: run the server to its listen step.
	for _, st := range p.srv.Steps() {
		p.serverListenStep++
		if _, err := p.srv.RunNext(context.Background()); err != nil {
			t.Fatalf("server %s: %v", st.ID, err)
		}
		if st.ID == "listen" {
			break
		}
	}
	port := p.srv.Snapshot().CMID.Local
	server, err := netip.ParseAddrPort(port)
	if err != nil {
		t.Fatalf("server local address %q: %v", port, err)
	}
	cliCfg := cliBase
	cliCfg.Role, cliCfg.Provider, cliCfg.Server, cliCfg.Timeout = steps.Client, p.cliNIC, server, 10*time.Second
	p.cli, err = steps.NewSession(cliCfg)
	if err != nil {
		t.Fatal(err)
	}
	p.sessions = map[steps.Role]*steps.Session{steps.Server: p.srv, steps.Client: p.cli}
	p.plan = steps.DemoPlan(p.srv.Steps(), p.cli.Steps())
	t.Cleanup(func() { p.srv.Close(); p.cli.Close() })
	return p
}

// runTurns runs the demo plan from the first turn not yet taken, up to
// (not including) turn k; -1 runs everything.
func (p *pair) runTurns(t *testing.T, k int) {
	t.Helper()
	for i, turn := range p.plan {
		if k >= 0 && i >= k {
			return
		}
		s := p.sessions[turn.Side]
		if s.Next() > turn.Index {
			continue // already run (the server's opening steps)
		}
		id := s.Steps()[turn.Index].ID
		if _, err := s.RunNext(context.Background()); err != nil {
			t.Fatalf("turn %d %s %s: %v", i, turn.Side, id, err)
		}
		if p.pauseAfter != nil {
			p.pauseAfter(turn.Side, id)
		}
	}
}

func TestToursOnSimulatedNIC(t *testing.T) {
	tests := []struct {
		notify     steps.Notify
		msg        string
		wantNotice string
		// server completions (opcode), client completions (opcode)
		srvOps []verbs.WCOpcode
		cliOps []verbs.WCOpcode
	}{
		{steps.NotifySend, "hello over SEND", steps.DoneText,
			[]verbs.WCOpcode{verbs.WCRecv}, []verbs.WCOpcode{verbs.WCRDMAWrite, verbs.WCSend}},
		{steps.NotifyDoorbell, "hello over doorbell", "doorbell=1",
			nil, []verbs.WCOpcode{verbs.WCRDMAWrite, verbs.WCRDMAWrite}},
		{steps.NotifyImm, "hello with imm", "imm_data=0x1234abcd",
			[]verbs.WCOpcode{verbs.WCRecvRDMAWithImm}, []verbs.WCOpcode{verbs.WCRDMAWrite}},
	}
	for _, tt := range tests {
		t.Run(tt.notify.String(), func(t *testing.T) {
			p := newPair(t, tt.notify, tt.msg)
			p.runTurns(t, -1)
			for _, s := range []*steps.Session{p.srv, p.cli} {
				if done, failed := s.Done(); !done || failed {
					t.Fatalf("%s: done=%v failed=%v", s.Config().Role, done, failed)
				}
			}
			snap := p.srv.Snapshot()
			if snap.Result == nil {
				t.Fatal("server has no result")
			}
			if string(snap.Result.Message) != tt.msg || snap.Result.Via != tt.notify || string(snap.Result.Notice) != tt.wantNotice {
				t.Errorf("server result = %+v, want message %q via %s notice %q", *snap.Result, tt.msg, tt.notify, tt.wantNotice)
			}
			checkOps(t, "server", snap, tt.srvOps)
			checkOps(t, "client", p.cli.Snapshot(), tt.cliOps)
			for name, nic := range map[string]verbs.Provider{"server": p.srvNIC, "client": p.cliNIC} {
				if live := nic.Live(); live.Total() != 0 {
					t.Errorf("%s leaked %+v", name, live)
				}
			}
		})
	}
}

func checkOps(t *testing.T, side string, snap steps.Snapshot, want []verbs.WCOpcode) {
	t.Helper()
	var got []verbs.WC
	if snap.CQ != nil {
		got = snap.CQ.Completions
	}
	if len(got) != len(want) {
		t.Fatalf("%s completions = %+v, want opcodes %v", side, got, want)
	}
	for i, wc := range got {
		if wc.Opcode != want[i] || wc.Status != verbs.WCSuccess {
			t.Errorf("%s completion %d = %s %s, want %s success", side, i, wc.Opcode, wc.Status, want[i])
		}
	}
}

// Quitting after any step on either side must release every resource on
// both simulated NICs.
func TestQuitAfterEveryTurnReleasesEverything(t *testing.T) {
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		plan := len(newPairPlan(n))
		for k := 0; k <= plan; k++ {
			p := newPair(t, n, "quit test")
			p.runTurns(t, k)
			for _, side := range []*steps.Session{p.cli, p.srv} {
				if _, err := side.Close(); err != nil {
					t.Errorf("%s k=%d: close: %v", n, k, err)
				}
			}
			for name, nic := range map[string]verbs.Provider{"server": p.srvNIC, "client": p.cliNIC} {
				if live := nic.Live(); live.Total() != 0 {
					t.Errorf("%s k=%d: %s leaked %+v", n, k, name, live)
				}
			}
		}
	}
}

func newPairPlan(n steps.Notify) []steps.Turn {
	srv, _ := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{})})
	cli, _ := steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Provider: sim.New(sim.Options{}),
		Server: netip.AddrPortFrom(loopback, 1)})
	return steps.DemoPlan(srv.Steps(), cli.Steps())
}

func TestDemoPlanCoversEveryStepOnce(t *testing.T) {
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		srv, _ := steps.NewSession(steps.Config{Role: steps.Server, Provider: sim.New(sim.Options{})})
		cli, _ := steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Provider: sim.New(sim.Options{}),
			Server: netip.AddrPortFrom(loopback, 1)})
		plan := steps.DemoPlan(srv.Steps(), cli.Steps())
		next := map[steps.Role]int{}
		for _, turn := range plan {
			if turn.Index != next[turn.Side] {
				t.Fatalf("%s: %s step %d out of order (want %d)", n, turn.Side, turn.Index, next[turn.Side])
			}
			next[turn.Side]++
		}
		if next[steps.Server] != len(srv.Steps()) || next[steps.Client] != len(cli.Steps()) {
			t.Errorf("%s: plan covers %v, tours have %d and %d steps", n, next, len(srv.Steps()), len(cli.Steps()))
		}
	}
}
