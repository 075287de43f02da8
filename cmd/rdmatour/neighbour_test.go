package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
	neighbourOutOfReach(t, sim.New(sim.Options{}), true, "127.0.0.1", "--backend", "sim")
}

// TestRealWorkshopNeighbourOutOfReach is the same on Soft-RoCE (rxe):
// rxe's lookup_mr refuses an rkey whose MR is in another PD than the QP.
// rdma_cm connections are slow in the QEMU guest under TCG (550 guesses,
// one at a time, had not finished after 11 minutes on a loaded host), so
// it makes the neighbour's exact address and rkey, its doorbell, every
// key byte of its index and the neighbouring indices (267 connections,
// 8 at a time), not the addresses around them and the review's relative
// guess.
func TestRealWorkshopNeighbourOutOfReach(t *testing.T) {
	addr := realAddr(t)
	prov, err := rdmacore.Open()
	if err != nil {
		t.Fatal(err)
	}
	neighbourOutOfReach(t, prov, false, addr, "--backend", "rdma", "--bind", addr)
}

// victimMessage is the neighbour's message, landed before the intruder
// starts and still unnotified.
const victimMessage = "honest message from Ana"

// neighbourOutOfReach runs the room, the neighbour and the intruder;
// every guesses around the neighbour's address as well (guessPlan).
func neighbourOutOfReach(t *testing.T, prov verbs.Provider, every bool, host string, backend ...string) {
	port := freePort(t)
	srv := start(t, nil, append([]string{"server", "--workshop", "--plain", "--port", port, "--max-attendees", "100"}, backend...)...)
	srv.waitFor(t, "[workshop] listening", 60*time.Second)
	victim := start(t, nil, append([]string{"client", host, "--port", port, "--plain", "--auto", "--brief", "--timeout", "300s",
		"--message", victimMessage, "--pause-at", "post-send"}, backend[:2]...)...)
	victim.waitFor(t, "paused before", 180*time.Second) // its WRITE has landed
	data, door := remoteInfoOf(t, victim.out.String())
	server, err := netip.ParseAddrPort(host + ":" + port)
	if err != nil {
		t.Fatal(err)
	}
	in := intruder{prov: prov, server: server}
	ctx := context.Background()
	began := time.Now()
	first, err := in.attempt(ctx, verbs.WRRDMAWrite, data)
	if err != nil {
		t.Fatal(err)
	}
	n, err := in.attemptAll(ctx, guessPlan(data, door, first, every), intruderConnections)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d guesses at the neighbour (%v), every one a remote access error, in %v", n+1, data, time.Since(began))
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

// guessPlan is what the intruder tries after the neighbour's exact
// address and rkey: the READ of it, the doorbell, every key byte of its
// index, the neighbouring indices; with every, those at the addresses
// around it too, and the review's guess relative to the intruder's own
// buffer (own).
func guessPlan(data, door guess, own privdata.RemoteInfo, every bool) []guessBatch {
	spread := []int64{0}
	if every {
		spread = []int64{-0x8000, -0x4000, -0x2000, 0, 0x2000, 0x4000, 0x8000}
	}
	plan := []guessBatch{
		{verbs.WRRDMARead, []guess{data}},
		{verbs.WRRDMAWrite, []guess{door}},
		{verbs.WRRDMAWrite, neighbourGuesses(data, spread)},
	}
	if every {
		plan = append(plan, guessBatch{verbs.WRRDMAWrite, reviewGuesses(own)})
	}
	return plan
}

// guessBatch is guesses tried with one operation.
type guessBatch struct {
	op verbs.WROpcode
	gs []guess
}

// intruderConnections is how many guesses the intruder has in flight at
// once: an rdma_cm connection is mostly waiting for the peer, so one
// after another would take minutes on rxe in the QEMU guest.
const intruderConnections = 8

// attemptAll tries every guess of plan, each on a fresh connection, n at
// a time, and returns how many it tried; the first one that is not a
// remote access error ends it.
func (in intruder) attemptAll(ctx context.Context, plan []guessBatch, n int) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		op verbs.WROpcode
		g  guess
	}
	jobs := make(chan job)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if _, err := in.attempt(ctx, j.op, j.g); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
	tried := 0
feed:
	for _, b := range plan {
		for _, g := range b.gs {
			select {
			case jobs <- job{b.op, g}:
				tried++
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	return tried, <-errs // nil when no worker failed
}

// attempt is one guess on a fresh connection; anything but a remote
// access error is an error. It returns what the room handed the
// connection.
func (in intruder) attempt(ctx context.Context, op verbs.WROpcode, g guess) (privdata.RemoteInfo, error) {
	c, err := in.connect(ctx)
	if err != nil {
		return privdata.RemoteInfo{}, fmt.Errorf("connecting to aim %s at %v: %w", op, g, err)
	}
	defer c.close()
	status, got, err := c.try(ctx, op, g)
	if err != nil {
		return c.own, fmt.Errorf("%s at %v: %w", op, g, err)
	}
	if status != verbs.WCRemAccessErr {
		return c.own, fmt.Errorf("%s at %v (the intruder's own buffer: addr 0x%x rkey 0x%x) completed with %s, want remote access error; READ got %q",
			op, g, c.own.Addr, c.own.RKey, status, got)
	}
	return c.own, nil
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
