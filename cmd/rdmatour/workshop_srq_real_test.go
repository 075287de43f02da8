package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestRealWorkshopSRQ: a --srq room on Soft-RoCE: the seed's C client and
// an rxe attendee notifying by immediate data land, their RECVs taken
// from the room's SRQ on rxe0, and the roster printed at the end has its
// fill level. (Two clients: under the guest's TCG each process costs
// seconds; four took 42 s. The simulated NIC's SRQ room is
// TestWorkshopSRQProcesses.)
func TestRealWorkshopSRQ(t *testing.T) {
	addr, seed := realAddr(t), seedBin(t)
	port := freePort(t)
	srv := start(t, nil, "server", port, "--workshop", "--srq", "--plain", "--bind", addr, "--max-attendees", "8")
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	clients := []*proc{
		start(t, nil, "client", addr, port, "--backend", "rdma", "--notify", "imm", "--plain", "--auto", "--brief", "--timeout", "60s", "--name", "rxe-imm"),
		startRaw(t, seed, "client", addr, port, "send"),
	}
	for i, c := range clients {
		if code := c.wait(t, 120*time.Second); code != 0 {
			t.Errorf("client %d %v exit %d:\n%s", i, c.cmd.Args[1:], code, c.out)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(srv.out.String(), "finished: everything freed") < len(clients) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"notified by send", "notified by imm", "SRQ rdma 6/8 RECVs posted, limit 2", "live objects left = 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
}
