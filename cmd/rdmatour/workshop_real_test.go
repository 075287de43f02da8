package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestRealWorkshopRoom: one workshop server on Soft-RoCE and the simulated
// NIC at once (--backend auto), and at the same time rdmatour clients on
// rxe in every notify mode, one running the bad-rkey lesson, one on the
// simulated NIC, and the seed's C client. Every good client's message
// lands; the bad-rkey attendee meets its lesson's error alone, and the
// room counts it done; Ctrl-C frees everything.
func TestRealWorkshopRoom(t *testing.T) {
	addr, seed := realAddr(t), seedBin(t)
	port := freePort(t)
	srv := start(t, nil, "server", port, "--workshop", "--plain", "--bind", addr, "--max-attendees", "10")
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	if out := srv.out.String(); !strings.Contains(out, "rdma "+addr) || !strings.Contains(out, "sim "+addr) {
		t.Fatalf("the workshop does not listen on both the device and the simulated NIC:\n%s", out)
	}
	type client struct {
		p    *proc
		want string // what the server must print of it
	}
	var clients []client
	for _, n := range []string{"send", "doorbell", "imm"} {
		msg := "rxe attendee via " + n
		clients = append(clients, client{start(t, nil, "client", addr, port, "--backend", "rdma", "--notify", n, "--plain", "--auto", "--brief",
			"--timeout", "60s", "--message", msg), "notified by " + n + ": " + msg})
	}
	clients = append(clients,
		client{start(t, nil, "client", addr, port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "60s", "--message", "sim attendee"),
			"notified by send: sim attendee"},
		client{start(t, nil, "client", addr, port, "--backend", "rdma", "--lesson", "bad-rkey", "--plain", "--auto", "--brief", "--timeout", "60s"), ""},
		client{startRaw(t, seed, "client", addr, port, "send"), "notified by send: hello from 108-41 client via RDMA WRITE"})
	for i, c := range clients {
		if code := c.p.wait(t, 120*time.Second); code != 0 {
			t.Errorf("client %d %v exit %d:\n%s", i, c.p.cmd.Args[1:], code, c.p.out)
		}
	}
	for _, c := range clients {
		if c.want != "" {
			srv.waitFor(t, c.want, 30*time.Second)
		}
	}
	if out := clients[4].p.out.String(); !strings.Contains(out, `RDMA_WRITE completion: status "remote access error"`) {
		t.Errorf("the bad-rkey client did not meet its lesson's error:\n%s", out)
	}
	// The bad-rkey attendee's error was its lesson's: the room says so and
	// counts it done, not failed.
	srv.waitFor(t, "expected error ✓ (lesson bad-rkey)", 30*time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(srv.out.String(), "finished: everything freed") < 5 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Errorf("server exit %d", code)
	}
	out := srv.out.String()
	for _, want := range []string{"live objects left = 0", "roster: 6 done, 0 running, 0 stuck, 0 failed", "  rdma  ", "  sim  "} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
	t.Log(lastLines(out, 9))
}

// TestRealWorkshopFallsBackToSim: when the device cannot listen (here
// another rdma_cm listener holds the port), the workshop still opens on
// the simulated NIC and says why.
func TestRealWorkshopFallsBackToSim(t *testing.T) {
	addr := realAddr(t)
	port := freePort(t)
	holder := start(t, nil, "server", port, "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--brief")
	holder.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
	srv := start(t, nil, "server", port, "--workshop", "--plain", "--bind", addr)
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	if out := srv.out.String(); !strings.Contains(out, "sim "+addr) || strings.Contains(out, "rdma "+addr) ||
		!strings.Contains(out, "the real device could not listen") || !strings.Contains(out, "already in use") {
		t.Fatalf("want the simulated NIC only, with the reason:\n%s", out)
	}
	cli := start(t, nil, "client", addr, port, "--backend", "sim", "--plain", "--auto", "--brief", "--message", "fallback")
	if code := cli.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s", code, cli.out)
	}
	srv.waitFor(t, "notified by send: fallback", 30*time.Second)
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Errorf("server exit %d:\n%s", code, srv.out)
	}
}
