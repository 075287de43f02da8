package steps

import (
	"context"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestUDClientSendsAgainUntilAnswered: the order two --auto processes
// can take. The client's message goes before the server's RECV (dropped
// like the early one); the client waits for the answer and sends again,
// the copy reaches the RECV, and the server answers it.
func TestUDClientSendsAgainUntilAnswered(t *testing.T) {
	srv, err := NewSession(Config{Role: Server, Tour: TourUD, Provider: sim.New(sim.Options{}),
		Bind: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	next := map[Role]int{}
	run := func(s *Session, r Role, until StepID) Outcome {
		t.Helper()
		for {
			id := s.Steps()[next[r]].ID
			out, err := s.RunNext(ctx)
			next[r]++
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", r, id, err, out.Call)
			}
			if id == until {
				return out
			}
		}
	}
	run(srv, Server, "listen")
	cli, err := NewSession(Config{Role: Client, Tour: TourUD, Provider: sim.New(sim.Options{}), Server: srv.listener.LocalAddr(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	// The demo's order up to the early datagram, then the client first.
	for _, turn := range DemoPlan(srv.Steps(), cli.Steps()) {
		s := map[Role]*Session{Server: srv, Client: cli}[turn.Side]
		if turn.Index < next[turn.Side] {
			continue
		}
		id := s.Steps()[turn.Index].ID
		if id == "ud-post-recv" {
			break
		}
		run(s, turn.Side, id)
	}
	run(cli, Client, "ud-send")
	waitInboundDatagrams(t, srv, 2) // both dropped before the RECV is posted
	answered := make(chan Outcome, 1)
	go func() {
		out, err := cli.RunNext(ctx) // ud-await-reply
		if err != nil {
			t.Errorf("ud-await-reply: %v\n%s", err, out.Call)
		}
		answered <- out
	}()
	run(srv, Server, "ud-poll-recv")
	run(srv, Server, "ud-reply")
	out := <-answered
	if got := resultOf(&out, "answer (recv_buf + 40)"); got != UDReplyText {
		t.Errorf("answer %q, want %q\n%s", got, UDReplyText, out.Call)
	}
	if n, _ := strconv.Atoi(resultOf(&out, "sent again")); n < 1 {
		t.Errorf("sent again %q, want at least 1 (the first copy found no RECV)\n%s", resultOf(&out, "sent again"), out.Call)
	}
}

// waitInboundDatagrams waits until the server's simulated NIC has seen n
// UD datagrams arrive: a datagram's SEND completes when it leaves, and
// it reaches the other NIC a moment later.
func waitInboundDatagrams(t *testing.T, s *Session, n int) {
	t.Helper()
	s.mu.Lock()
	tr := s.dev.(verbs.PacketTracer)
	s.mu.Unlock()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		got := 0
		for _, p := range tr.Packets(0) {
			if !p.Outbound && p.Opcode == verbs.OpUDSendOnly {
				got++
			}
		}
		if got >= n {
			return
		}
	}
	t.Fatalf("the server's NIC did not see %d datagrams arrive", n)
}
