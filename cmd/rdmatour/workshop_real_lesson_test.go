package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// TestRealWorkshopLessonRoom: a mixed room (Soft-RoCE and the simulated
// NIC, --backend auto) whose plan is the server-side lesson
// no-remote-write. Plain clients on rxe and on the simulated NIC follow
// the room's plan (the REJ carried it) and send their predictions; the
// seed's C client, which sends no hello, is served as it always is and
// meets the server side of the lesson too. Every attendee's WRITE is
// refused; the room counts the two answers and reveals them.
func TestRealWorkshopLessonRoom(t *testing.T) {
	addr, seed := realAddr(t), seedBin(t)
	l, _ := steps.LessonByName("no-remote-write")
	_, choices := l.AttendeeQuestion()
	success, access := choiceNumber(t, choices, "IBV_WC_SUCCESS"), choiceNumber(t, choices, "IBV_WC_REM_ACCESS_ERR")
	port := freePort(t)
	srv := start(t, nil, "server", port, "--workshop", "--plain", "--bind", addr, "--lesson", "no-remote-write", "--max-attendees", "10")
	srv.waitFor(t, "--tour write --lesson no-remote-write for every attendee", 60*time.Second)
	if out := srv.out.String(); !strings.Contains(out, "rdma "+addr) || !strings.Contains(out, "sim "+addr) {
		t.Fatalf("the room does not listen on both the device and the simulated NIC:\n%s", out)
	}
	attendee := func(backend, name string, pick int) *proc {
		return start(t, nil, "client", addr, port, "--backend", backend, "--plain", "--auto", "--brief", "--timeout", "60s",
			"--name", name, "--predict", fmt.Sprint(pick))
	}
	rxe, simc := attendee("rdma", "rxe-ann", access), attendee("sim", "sim-bo", success)
	seedc := startRaw(t, seed, "client", addr, port, "send")
	for _, c := range []*proc{rxe, simc, seedc} {
		c.wait(t, 120*time.Second) // a lesson's client exits as its page says; the room and the outputs are checked
	}
	for _, c := range []*proc{rxe, simc} {
		out := c.out.String()
		if !strings.Contains(out, "the workshop runs --lesson no-remote-write: starting again with it") || !strings.Contains(out, `status "remote access error"`) {
			t.Errorf("%v did not follow the room into its lesson's error:\n%s", c.cmd.Args[1:], lastLines(out, 40))
		}
	}
	if out := seedc.out.String(); strings.Contains(out, "hello from 108-41 client via RDMA WRITE") && !strings.Contains(strings.ToLower(out), "error") {
		t.Errorf("the seed's WRITE went through a no-remote-write room:\n%s", out)
	}
	srv.waitFor(t, "(round 1: 2 answered)", 30*time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(srv.out.String(), "expected error ✓ (lesson no-remote-write)") < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	io.WriteString(srv.stdin, "reveal\n")
	srv.waitFor(t, "happened (the server's view of each QP)", 10*time.Second)
	// What happened: the sim attendee's NAK is on the room's wire; the
	// rxe attendees' and the seed's are not where this side cannot capture
	// (rxe loops a local address back inside the kernel), so those runs
	// are counted as not judged.
	tallyRow(t, srv, success, "█ 1 0 0 IBV_WC_SUCCESS")
	tallyRow(t, srv, access, "█ 1 0 █")
	if !strings.Contains(srv.out.String(), "expected error ✓ (lesson no-remote-write)") || strings.Contains(srv.out.String(), "(lesson )") {
		t.Errorf("the seed's row does not name the room's lesson:\n%s", srv.out)
	}
	io.WriteString(srv.stdin, "quit\n")
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Errorf("server exit %d", code)
	}
	out := srv.out.String()
	for _, want := range []string{"live objects left = 0", "roster: 3 done", "  rdma  ", "  sim  "} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
	t.Log(lastLines(out, 16))
}
