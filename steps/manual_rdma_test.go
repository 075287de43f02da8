//go:build linux && cgo

package steps

import (
	"context"
	"net/netip"
	"testing"
	"time"
)

// The manual tours on real verbs, server and client in one process on one
// device: run in the QEMU guest with RDMATOUR_RDMA_ADDR=10.0.2.15.
func TestManualTourOnRealVerbs(t *testing.T) {
	p, addr := realVerbs(t)
	for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
		srv := newManualSession(t, Config{Role: Server, Notify: n, Provider: p, Bind: netip.AddrPortFrom(addr, 7600+uint16(n)), Timeout: 20 * time.Second})
		cli := newManualSession(t, Config{Role: Client, Notify: n, Provider: p, Server: netip.AddrPortFrom(addr, 7600+uint16(n)), Message: "manual on rxe " + n.String(), Timeout: 20 * time.Second})
		sessions := map[Role]*Session{Server: srv, Client: cli}
		for _, turn := range DemoPlan(srv.Steps(), cli.Steps()) {
			s := sessions[turn.Side]
			id := s.Steps()[turn.Index].ID
			out, err := s.RunNext(context.Background())
			if err != nil {
				t.Fatalf("%s %s %s: %v\n%s", n, turn.Side, id, err, out.Call)
			}
			if id == "modify-init" || id == "modify-rtr" || id == "modify-rts" || id == "establish" || id == "accept-manual" || id == "teardown" {
				t.Logf("%s %s %s:\n%s", n, turn.Side, id, out.Call)
			}
		}
		if r := srv.Snapshot().Result; r == nil || string(r.Message) != "manual on rxe "+n.String() {
			t.Fatalf("%s: server result %+v", n, r)
		}
		srv.Close()
		cli.Close()
		if live := p.Live(); live.Total() != 0 {
			t.Fatalf("%s: live %+v", n, live)
		}
	}
}
