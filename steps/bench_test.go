package steps_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// BenchmarkWholeTour runs one complete tour — both sides, every step, from
// rdma_create_event_channel to teardown — on two simulated NICs.
func BenchmarkWholeTour(b *testing.B) {
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		b.Run(n.String(), func(b *testing.B) {
			for b.Loop() {
				runWholeTour(b, n)
			}
		})
	}
}

func runWholeTour(b *testing.B, n steps.Notify) {
	ctx := context.Background()
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Notify: n, Provider: sim.New(sim.Options{}),
		Bind: netip.AddrPortFrom(loopback, 0), Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	tour := srv.Steps()
	for srv.Next() < len(tour) && tour[srv.Next()].ID != "get-connect-request" {
		if _, err := srv.RunNext(ctx); err != nil {
			b.Fatal(err)
		}
	}
	addr, err := netip.ParseAddrPort(srv.Snapshot().CMID.Local)
	if err != nil {
		b.Fatal(err)
	}
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Notify: n, Provider: sim.New(sim.Options{}),
		Server: addr, Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	sides := map[steps.Role]*steps.Session{steps.Server: srv, steps.Client: cli}
	for _, turn := range steps.DemoPlan(srv.Steps(), cli.Steps()) {
		s := sides[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		if _, err := s.RunNext(ctx); err != nil {
			b.Fatalf("%s %s: %v", turn.Side, s.Steps()[turn.Index].ID, err)
		}
	}
	if r := srv.Snapshot().Result; r == nil || string(r.Message) != steps.DefaultMessage {
		b.Fatalf("tour ended without the message: %+v", r)
	}
}
