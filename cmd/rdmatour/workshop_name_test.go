package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestWorkshopNames: an attendee's --name travels in their hello and the
// workshop server's events and roster name them by it; the results file
// has it too.
func TestWorkshopNames(t *testing.T) {
	port := freePort(t)
	results := t.TempDir() + "/results.csv"
	srv := start(t, nil, "server", port, "--workshop", "--plain", "--backend", "sim", "--results", results)
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	for _, name := range []string{"Ada Lovelace", "李雷"} {
		c := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--name", name)
		if code := c.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("client %q exit %d:\n%s", name, code, c.out)
		}
		srv.waitFor(t, name, 10*time.Second)
	}
	srv.waitFor(t, "finished", 10*time.Second)
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"#1 Ada Lovelace", "#2 李雷"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server's events do not name %q:\n%s", want, out)
		}
	}
	raw, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(raw)), "\n"); len(lines) != 3 || !strings.Contains(lines[0], ",name,") ||
		!strings.Contains(lines[1], ",Ada Lovelace,") || !strings.Contains(lines[2], ",李雷,") {
		t.Errorf("results file without the names:\n%s", raw)
	}
}

// A --name the hello cannot carry, or one with control characters, is
// refused before anything runs, saying what fits.
func TestNameFlag(t *testing.T) {
	for _, tt := range []struct{ name, err string }{
		{"ada", ""},
		{"王小明", ""},
		{strings.Repeat("x", 17), "at most 16 fit"},
		{"ada\x1b[2J", "only printable characters"},
		{"a\tb", "only printable characters"},
	} {
		_, err := parseArgs([]string{"client", "10.0.0.1", "--name", tt.name}, func(string) string { return "" }, io.Discard)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("--name %q refused: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("--name %q: got %v, want an error saying %q", tt.name, err, tt.err)
		}
	}
}

// TestWorkshopSRQProcesses: `server --workshop --srq --plain` serves
// client processes whose SENDs land in the room's shared receive queue,
// and its roster at the end says the SRQ's fill level and the PD it
// makes every attendee share.
func TestWorkshopSRQProcesses(t *testing.T) {
	port := freePort(t)
	srv := start(t, nil, "server", port, "--workshop", "--srq", "--plain", "--backend", "sim", "--max-attendees", "8")
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	for i, notify := range []string{"send", "imm", "doorbell"} {
		c := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--notify", notify, "--name", "srq-"+notify)
		if code := c.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("client %d (%s) exit %d:\n%s", i, notify, code, c.out)
		}
		srv.waitFor(t, "notified by "+notify, 10*time.Second)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"SRQ sim 6/8 RECVs posted, limit 2, 0 limit event(s)", "one PD for all", "live objects left = 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
}
