package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWorkshopEndsOnHangup is the hostile review's W12c: SIGHUP (the
// instructor's terminal closed, an ssh dropped) ends a workshop as Ctrl-C
// does — every attendee torn down, the roster printed — instead of at
// once with neither.
func TestWorkshopEndsOnHangup(t *testing.T) {
	port := freePort(t)
	srv := start(t, nil, "server", "--workshop", "--port", port, "--backend", "sim", "--plain")
	srv.waitFor(t, "[workshop] listening", 20*time.Second)
	cli := start(t, nil, "client", "127.0.0.1", "--port", port, "--backend", "sim", "--plain", "--auto", "--brief",
		"--timeout", "60s", "--message", "still here", "--pause-at", "post-send")
	cli.waitFor(t, "paused before", 30*time.Second)
	srv.cmd.Process.Signal(syscall.SIGHUP)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Errorf("server exit %d after SIGHUP, want 0 as after Ctrl-C:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"live objects left = 0", "roster: "} {
		if !strings.Contains(out, want) {
			t.Errorf("after SIGHUP the server did not print %q:\n%s", want, out)
		}
	}
}
