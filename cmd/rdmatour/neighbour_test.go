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
// tour are untouched. It makes every guess of guessPlan (550), 8 at a
// time.
func TestWorkshopNeighbourOutOfReach(t *testing.T) {
	neighbourOutOfReach(t, sim.New(sim.Options{}), everyGuess, "127.0.0.1", "--backend", "sim")
}

// TestRealWorkshopNeighbourOutOfReach is the same on Soft-RoCE (rxe),
// with only the guesses that reach rxe's PD check: the neighbour's exact
// rkey and address, as a WRITE and as a READ, and its doorbell's.
//
// Why not all 256 key bytes of its index: rxe's lookup_mr (rxe_mr.c)
// refuses an rkey unless it equals the MR's whole rkey AND the MR is in
// the QP's PD, so the 255 other key bytes are refused by the key alone,
// in a room with one PD as in a room with a PD per attendee; the one
// that equals the neighbour's key is the guess only the PD can stop,
// and it is made here. The simulated NIC's twin makes all 256 (its
// checkRange compares the whole key first too).
//
// Why one at a time: an rdma_cm connection to the room costs 1-3 s in
// the QEMU guest under TCG (measured 2026-12-01), and eight at once made
// the room's handshakes slower than the intruder's 20 s wait (the
// failure that kept this test out of the guest suite). Measured with the
// host's load average at 11-18: 3 guesses in 23 s, the whole test 84-95 s,
// most of it the two rdmatour processes' start and the neighbour's tour.
func TestRealWorkshopNeighbourOutOfReach(t *testing.T) {
	addr := realAddr(t)
	prov, err := rdmacore.Open()
	if err != nil {
		t.Fatal(err)
	}
	neighbourOutOfReach(t, prov, exactGuess, addr, "--backend", "rdma", "--bind", addr)
}

// guessReach is which guesses a run makes (guessPlan) and how many
// connections it has in flight at once.
type guessReach struct {
	every       bool
	connections int
}

var (
	// everyGuess is the simulated NIC's: every key byte, the addresses
	// around the neighbour's, the review's relative guess. An rdma_cm
	// connection is mostly waiting for the peer, so eight at a time.
	everyGuess = guessReach{every: true, connections: 8}
	// exactGuess is rxe's: the guesses that reach the PD check, one
	// connection at a time (see TestRealWorkshopNeighbourOutOfReach).
	exactGuess = guessReach{every: false, connections: 1}
)

// victimMessage is the neighbour's message, landed before the intruder
// starts and still unnotified.
const victimMessage = "honest message from Ana"

// neighbourOutOfReach runs the room, the neighbour and the intruder,
// which makes the guesses of reach.
func neighbourOutOfReach(t *testing.T, prov verbs.Provider, reach guessReach, host string, backend ...string) {
	laps := newLaps(t)
	port := freePort(t)
	srv := start(t, nil, append([]string{"server", "--workshop", "--plain", "--port", port, "--max-attendees", "100"}, backend...)...)
	srv.waitFor(t, "[workshop] listening", 60*time.Second)
	laps.lap("the room listens")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the room's output:\n%s", lastLines(srv.out.String(), 60))
		}
	})
	victim := start(t, nil, append([]string{"client", host, "--port", port, "--plain", "--auto", "--brief", "--timeout", "300s",
		"--message", victimMessage, "--pause-at", "post-send"}, backend[:2]...)...)
	victim.waitFor(t, "paused before", 180*time.Second) // its WRITE has landed
	laps.lap("the neighbour's WRITE landed")
	data, door := remoteInfoOf(t, victim.out.String())
	server, err := netip.ParseAddrPort(host + ":" + port)
	if err != nil {
		t.Fatal(err)
	}
	in := intruder{prov: prov, server: server}
	ctx := context.Background()
	first, err := in.attempt(ctx, verbs.WRRDMAWrite, data)
	if err != nil {
		t.Fatal(err)
	}
	n, err := in.attemptAll(ctx, guessPlan(data, door, first, reach.every), reach.connections)
	if err != nil {
		t.Fatal(err)
	}
	laps.lap(fmt.Sprintf("%d guesses at the neighbour (%v), every one a remote access error", n+1, data))
	victim.stdin.Write([]byte("\n"))
	if code := victim.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("the neighbour's tour did not finish (exit %d):\n%s", code, lastLines(victim.out.String(), 20))
	}
	srv.waitFor(t, "notified by send: "+victimMessage, 30*time.Second)
	laps.lap("the neighbour's tour finished")
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Errorf("server exit %d", code)
	}
	laps.lap("the room ended")
	out := srv.out.String()
	if strings.Contains(out, "PWNED") || !strings.Contains(out, "live objects left = 0") {
		t.Errorf("the room shows the intruder's bytes, or did not free everything:\n%s", lastLines(out, 30))
	}
}

// guessPlan is what the intruder tries after a WRITE at the neighbour's
// exact address and rkey: a READ of it and a WRITE at the doorbell; with
// every, also every key byte of its index and the neighbouring indices at
// the addresses around it, and the review's guess relative to the
// intruder's own buffer (own).
func guessPlan(data, door guess, own privdata.RemoteInfo, every bool) []guessBatch {
	plan := []guessBatch{
		{verbs.WRRDMARead, []guess{data}},
		{verbs.WRRDMAWrite, []guess{door}},
	}
	if every {
		spread := []int64{-0x8000, -0x4000, -0x2000, 0, 0x2000, 0x4000, 0x8000}
		plan = append(plan, guessBatch{verbs.WRRDMAWrite, neighbourGuesses(data, spread)},
			guessBatch{verbs.WRRDMAWrite, reviewGuesses(own)})
	}
	return plan
}

// guessBatch is guesses tried with one operation.
type guessBatch struct {
	op verbs.WROpcode
	gs []guess
}

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

// laps logs how long each phase of a slow test took: in the QEMU guest
// that is what says where its time goes.
type laps struct {
	t    *testing.T
	last time.Time
}

func newLaps(t *testing.T) *laps { return &laps{t: t, last: time.Now()} }

func (l *laps) lap(what string) {
	l.t.Helper()
	now := time.Now()
	l.t.Logf("%s: %v", what, now.Sub(l.last).Round(time.Millisecond))
	l.last = now
}
