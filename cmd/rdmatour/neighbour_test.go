package main

import (
	"context"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/rdmacore"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestWorkshopNeighbourOutOfReach is the hostile review's W10 on the
// simulated NIC: an attendee who knows, or guesses, a neighbour's rkey
// and buffer address gets only remote access errors, because every
// attendee's MRs sit in a PD of their own; the neighbour's buffer and
// tour are untouched.
func TestWorkshopNeighbourOutOfReach(t *testing.T) {
	neighbourOutOfReach(t, sim.New(sim.Options{}), "127.0.0.1", "--backend", "sim")
}

// TestRealWorkshopNeighbourOutOfReach is the same on Soft-RoCE (rxe):
// rxe's lookup_mr refuses an rkey whose MR is in another PD than the QP.
func TestRealWorkshopNeighbourOutOfReach(t *testing.T) {
	addr := realAddr(t)
	prov, err := rdmacore.Open()
	if err != nil {
		t.Fatal(err)
	}
	neighbourOutOfReach(t, prov, addr, "--backend", "rdma", "--bind", addr)
}

// victimMessage is the neighbour's message, landed before the intruder
// starts and still unnotified.
const victimMessage = "honest message from Ana"

func neighbourOutOfReach(t *testing.T, prov verbs.Provider, host string, backend ...string) {
	port := freePort(t)
	srv := start(t, nil, append([]string{"server", "--workshop", "--plain", "--port", port, "--max-attendees", "100"}, backend...)...)
	srv.waitFor(t, "[workshop] listening", 60*time.Second)
	victim := start(t, nil, append([]string{"client", host, "--port", port, "--plain", "--auto", "--brief", "--timeout", "300s",
		"--message", victimMessage, "--pause-at", "post-send"}, backend[:2]...)...)
	victim.waitFor(t, "paused before", 60*time.Second) // its WRITE has landed
	data, door := remoteInfoOf(t, victim.out.String())
	server, err := netip.ParseAddrPort(host + ":" + port)
	if err != nil {
		t.Fatal(err)
	}
	in := intruder{prov: prov, server: server}
	ctx := context.Background()
	first := in.attempt(t, ctx, verbs.WRRDMAWrite, data)
	plan := []struct {
		op verbs.WROpcode
		gs []guess
	}{
		{verbs.WRRDMARead, []guess{data}},
		{verbs.WRRDMAWrite, []guess{door}},
		{verbs.WRRDMAWrite, neighbourGuesses(data)},
		{verbs.WRRDMAWrite, reviewGuesses(first)},
	}
	n := 1
	began := time.Now()
	for _, p := range plan {
		for _, g := range p.gs {
			in.attempt(t, ctx, p.op, g)
			n++
		}
	}
	t.Logf("%d guesses at the neighbour (%v), every one a remote access error, in %v", n, data, time.Since(began))
	victim.stdin.Write([]byte("\n"))
	if code := victim.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("the neighbour's tour did not finish (exit %d):\n%s", code, lastLines(victim.out.String(), 20))
	}
	srv.waitFor(t, "notified by send: "+victimMessage, 30*time.Second)
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Errorf("server exit %d", code)
	}
	out := srv.out.String()
	if strings.Contains(out, "PWNED") || !strings.Contains(out, "live objects left = 0") {
		t.Errorf("the room shows the intruder's bytes, or did not free everything:\n%s", lastLines(out, 30))
	}
}

// attempt is one guess on a fresh connection; anything but a remote
// access error fails the test. It returns what the room handed the
// connection.
func (in intruder) attempt(t *testing.T, ctx context.Context, op verbs.WROpcode, g guess) (own privdata.RemoteInfo) {
	t.Helper()
	c, err := in.connect(ctx)
	if err != nil {
		t.Fatalf("connecting to aim %s at %v: %v", op, g, err)
	}
	defer c.close()
	status, got, err := c.try(ctx, op, g)
	if err != nil {
		t.Fatalf("%s at %v: %v", op, g, err)
	}
	if status != verbs.WCRemAccessErr {
		t.Fatalf("%s at %v (the intruder's own buffer: addr 0x%x rkey 0x%x) completed with %s, want remote access error; READ got %q",
			op, g, c.own.Addr, c.own.RKey, status, got)
	}
	return c.own
}

// remoteInfoOf reads the data buffer's and the doorbell's address and
// rkey from a client's plain output (its get-established step).
func remoteInfoOf(t *testing.T, out string) (data, door guess) {
	t.Helper()
	field := func(name string) uint64 {
		m := regexp.MustCompile(regexp.QuoteMeta(name) + `; /\* = 0x([0-9a-f]+) \*/`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %q in the client's output:\n%s", name, out)
		}
		v, err := strconv.ParseUint(m[1], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	data = guess{field("remote_addr = be64toh(info.addr_be)"), uint32(field("rkey = ntohl(info.rkey_be)"))}
	door = guess{field("doorbell_addr = be64toh(info.doorbell_addr_be)"), uint32(field("doorbell_rkey = ntohl(info.doorbell_rkey_be)"))}
	return data, door
}
