package steps

import (
	"context"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// recoverRun is one recover-qp run: each step's outcome by "side/step".
type recoverRun struct {
	srv, cli *Session
	outs     map[string]Outcome
	// landed is the server's data MR after the second exchange.
	landed []byte
}

// runRecoverQP runs the recover-qp lesson, both sides, to the end: on
// srvP and cliP, the server bound to bind (port 0: any), the client
// sent to the port it listens on.
func runRecoverQP(t *testing.T, srvP, cliP verbs.Provider, bind netip.AddrPort, msg string) recoverRun {
	t.Helper()
	l, err := LessonByName("recover-qp")
	if err != nil {
		t.Fatal(err)
	}
	srv := newManualSession(t, Config{Role: Server, Lesson: &l, Provider: srvP, Bind: bind, Timeout: 20 * time.Second})
	t.Cleanup(func() { srv.Close() })
	// The server to its listen, then the client can be told the port.
	for srv.Steps()[srv.Next()].ID != IDGetConnectRequest {
		if _, err := srv.RunNext(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	server, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		t.Fatal(err)
	}
	cli := newManualSession(t, Config{Role: Client, Lesson: &l, Provider: cliP, Server: server, Message: msg, Timeout: 20 * time.Second})
	t.Cleanup(func() { cli.Close() })
	r := recoverRun{srv: srv, cli: cli, outs: map[string]Outcome{}}
	sessions := map[Role]*Session{Server: srv, Client: cli}
	for _, turn := range DemoPlan(srv.Steps(), cli.Steps()) {
		s := sessions[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		id := s.Steps()[turn.Index].ID
		out, err := s.RunNext(context.Background())
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", turn.Side, id, err, out.Call)
		}
		r.outs[turn.Side.String()+"/"+string(id)] = out
		if id == IDWaitNotifyAgain { // the MR, before teardown frees it
			r.landed, _ = s.mrData.Read(0, len(msg))
		}
	}
	return r
}

// value is the result called name of the step key ("" if none).
func (r recoverRun) value(key, name string) string {
	for _, kv := range r.outs[key].Results {
		if kv.Name.EN == name {
			return kv.Value.EN
		}
	}
	return ""
}

// checkRecovered checks what the recover-qp lesson must show on any NIC.
func (r recoverRun) check(t *testing.T, msg string) {
	t.Helper()
	for _, s := range []*Session{r.srv, r.cli} {
		if done, failed := s.Done(); !done || failed {
			t.Fatalf("%s: done=%v failed=%v", s.Config().Role, done, failed)
		}
	}
	if res := r.srv.Snapshot().Result; res == nil || string(res.Message) != msg {
		t.Errorf("server result %+v, want %q", res, msg)
	}
	if string(r.landed) != msg {
		t.Errorf("server MR holds %q, want %q", r.landed, msg)
	}
	// Both QPs went to ERR, came back through RESET to RTS, and ended in
	// ERR at the disconnect.
	wantHist := []verbs.QPState{verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr,
		verbs.QPSReset, verbs.QPSInit, verbs.QPSRTR, verbs.QPSRTS, verbs.QPSErr}
	for _, s := range []*Session{r.srv, r.cli} {
		if h := s.Snapshot().QP.History; !slices.Equal(h, wantHist) {
			t.Errorf("%s QP history %v, want %v", s.Config().Role, h, wantHist)
		}
	}
	for _, tc := range []struct{ key, name, want string }{
		{"client/poll-write", "status", "remote access error"},
		{"client/drain-cq", "flush completions polled now", "1"}, // the SEND posted into ERR
		{"server/drain-cq", "flush completions polled now", "0"}, // wait-notify took the RECV's
		{"server/drain-cq", "flush completions since the error", "1"},
		{"client/modify-reset", "transition", "ERR → RESET"},
		{"server/modify-reset", "transition", "ERR → RESET"},
		{"client/recover-rts", "transition", "RTR → RTS"},
		{"server/recover-rts", "transition", "RTR → RTS"},
		{"client/poll-write-again", "status", "success"},
		{"client/poll-notify", "status", "success"},
	} {
		if got := r.value(tc.key, tc.name); got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.key, tc.name, got, tc.want)
		}
	}
	// The same peer, the old PSNs: what rdma_init_qp_attr gave the first
	// time.
	for _, side := range []string{"server", "client"} {
		for _, f := range []struct{ first, again, name string }{
			{"modify-rtr", "recover-rtr", "dest_qp_num"}, {"modify-rtr", "recover-rtr", "rq_psn"}, {"modify-rts", "recover-rts", "sq_psn"},
		} {
			a, b := r.value(side+"/"+f.first, f.name), r.value(side+"/"+f.again, f.name)
			if a == "" || a != b {
				t.Errorf("%s: %s %s = %q, %s's %q: want the same", side, f.first, f.name, a, f.again, b)
			}
		}
	}
}

func TestRecoverQPOnSimulatedNIC(t *testing.T) {
	srvNIC, cliNIC := sim.New(sim.Options{}), sim.New(sim.Options{})
	const msg = "written again after recovery"
	r := runRecoverQP(t, srvNIC, cliNIC, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0), msg)
	r.check(t, msg)
	r.srv.Close()
	r.cli.Close()
	for name, nic := range map[string]verbs.Provider{"server": srvNIC, "client": cliNIC} {
		if live := nic.Live(); live.Total() != 0 {
			t.Errorf("%s leaked %+v", name, live)
		}
	}
}
