package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestWorkshopAtomicProcesses: `rdmatour server --workshop --tour atomic`
// on the simulated NIC with four atomic client processes. Each pauses
// before its CMP_AND_SWP, so all four FETCH_AND_ADDs hit the one shared
// counter first: their old values are 40, 42, 44 and 46, each once. Then
// exactly one CMP_AND_SWP (the last adder's) still finds what it expects,
// the others are told someone else changed the counter, and the roster
// shows the counter at 1000 and each attendee's atomics. A write client
// is turned away with the room's tour in the reason.
func TestWorkshopAtomicProcesses(t *testing.T) {
	out := workshopAtomicProcesses(t, "127.0.0.1", nil, "--backend", "sim")
	// The simulated NIC shows the server every packet: the rows say what
	// each attendee's atomics found.
	if !strings.Contains(out, "COMPARE_SWAP 48→1000 → old 48 (swapped)") || !strings.Contains(out, "atomics done: FETCH_ADD +2 → old") {
		t.Errorf("the server did not show the attendees' atomics:\n%s", out)
	}
}

// TestRealWorkshopAtomicProcesses: the same on Soft-RoCE, the room on the
// device only.
func TestRealWorkshopAtomicProcesses(t *testing.T) {
	addr := realAddr(t)
	out := workshopAtomicProcesses(t, addr, []string{"--bind", addr}, "--backend", "rdma")
	t.Logf("server:\n%s", out)
}

// workshopAtomicProcesses runs the atomic room with four attendees at
// host and returns the server's output. srvArgs go to the server only,
// args to every process.
func workshopAtomicProcesses(t *testing.T, host string, srvArgs []string, args ...string) string {
	const n = 4
	port := freePort(t)
	srv := start(t, nil, append(append([]string{"server", port, "--workshop", "--plain", "--tour", "atomic"}, srvArgs...), args...)...)
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	srv.waitFor(t, "one shared 8-byte counter per backend, starting at 40", 5*time.Second)

	clients := make([]*proc, n)
	for i := range clients {
		clients[i] = start(t, nil, append([]string{"client", host, port, "--plain", "--auto", "--brief", "--timeout", "60s",
			"--tour", "atomic", "--pause-at", "post-cmp-swap"}, args...)...)
	}
	for _, p := range clients {
		p.waitFor(t, "paused before post-cmp-swap", 60*time.Second)
	}
	srv.waitFor(t, "connected", 10*time.Second)

	// One who asked for the write tour is told what the room runs (one who
	// asked for nothing would follow it: TestWorkshopClassVotes).
	wrong := start(t, nil, append([]string{"client", host, port, "--plain", "--auto", "--brief", "--timeout", "60s", "--tour", "write"}, args...)...)
	if code := wrong.wait(t, 60*time.Second); code != 1 || !strings.Contains(wrong.out.String(), "this workshop runs --tour atomic, you ran --tour write") {
		t.Errorf("a write client in an atomic room: exit %d:\n%s", code, wrong.out)
	}

	for _, p := range clients {
		p.stdin.Write([]byte("\n"))
	}
	oldRE := regexp.MustCompile(`(?m)^\s+old value = (\d+)$`)
	var faa []string
	held := 0
	for i, p := range clients {
		if code := p.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("client %d exit %d:\n%s", i, code, p.out)
		}
		out := p.out.String()
		olds := oldRE.FindAllStringSubmatch(out, -1)
		if len(olds) != 2 {
			t.Fatalf("client %d printed %d old values:\n%s", i, len(olds), out)
		}
		faa = append(faa, olds[0][1])
		if strings.Contains(out, "compare held = true") {
			held++
		} else if !strings.Contains(out, "another client did (in a workshop room") {
			t.Errorf("client %d's swap did not happen and it was not told why:\n%s", i, out)
		}
	}
	sort.Strings(faa)
	if strings.Join(faa, " ") != "40 42 44 46" || held != 1 {
		t.Errorf("FETCH_AND_ADD old values %v and %d swaps; want 40 42 44 46 and exactly one swap", faa, held)
	}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(srv.out.String(), "finished: everything freed") < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"live objects left = 0", fmt.Sprintf("roster: %d done, 0 running, 0 stuck, 0 failed, 1 turned away", n),
		"shared counter 1000 (started at 40)", "turned away: this workshop runs --tour atomic"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
	return out
}
