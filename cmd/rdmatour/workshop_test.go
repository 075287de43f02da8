package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWorkshopProcesses: `rdmatour server --workshop --plain` on the
// simulated NIC serves 50 client processes at once (distinct messages,
// all three notify modes), garbage connections and clients killed
// mid-tour, and one client over its --max-attendees limit... then Ctrl-C
// ends it within a second with everything released and the roster.
func TestWorkshopProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("50 client processes")
	}
	workshopProcesses(t, 50, "127.0.0.1", nil, "--backend", "sim")
}

// workshopProcesses runs n clients against one workshop server. srvArgs
// go to the server only, args to every process.
func workshopProcesses(t *testing.T, n int, host string, srvArgs []string, args ...string) {
	port := freePort(t)
	srv := start(t, nil, append(append([]string{"server", port, "--workshop", "--plain", "--max-attendees", fmt.Sprint(n + 2)}, srvArgs...), args...)...)
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)

	// Two that vanish mid-tour: paused before their WRITE, then killed.
	var vanish []*proc
	for i := 0; i < 2; i++ {
		p := start(t, nil, append([]string{"client", host, port, "--plain", "--auto", "--brief", "--pause-at", "post-write", "--message", "never sent"}, args...)...)
		vanish = append(vanish, p)
	}
	for _, p := range vanish {
		p.waitFor(t, "paused before post-write", 60*time.Second)
	}
	for i := 0; i < 3; i++ { // garbage on the port (the simulated NIC's TCP port)
		if c, err := net.Dial("tcp", net.JoinHostPort(host, port)); err == nil {
			c.Write([]byte("\x1b[2J\x1b]0;pwned\x07 GET / HTTP/1.0\r\n\r\n"))
			c.Close()
		}
	}
	notify := []string{"send", "doorbell", "imm"}
	clients := make([]*proc, n)
	var wg sync.WaitGroup
	for i := range clients {
		clients[i] = start(t, nil, append([]string{"client", host, port, "--plain", "--auto", "--brief", "--timeout", "60s",
			"--notify", notify[i%3], "--message", fmt.Sprintf("attendee %02d was here", i)}, args...)...)
	}
	for _, p := range vanish {
		p.cmd.Process.Kill()
	}
	for i, p := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code := p.wait(t, 120*time.Second); code != 0 {
				t.Errorf("client %d exit %d:\n%s", i, code, p.out)
			}
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		srv.waitFor(t, fmt.Sprintf("notified by %s: attendee %02d was here", notify[i%3], i), 30*time.Second)
	}
	// The vanished ones are noticed (their DREQ) and freed.
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(srv.out.String(), "error: ") < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	srv.cmd.Process.Signal(os.Interrupt)
	sent := time.Now()
	code := srv.wait(t, 30*time.Second)
	took := time.Since(sent)
	out := srv.out.String()
	// The goal is under a second (measured: a few ms); the bound here
	// only catches a hang, not a slow machine.
	if code != 0 || took > 10*time.Second {
		t.Errorf("server exit %d after %v; want 0, promptly after Ctrl-C", code, took)
	}
	for _, want := range []string{"live objects left = 0", fmt.Sprintf("roster: %d done, 0 running, 0 stuck, 2 failed", n), "\"attendee 07 was here\""} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "panic") {
		t.Errorf("raw escape bytes or a panic in the server's output:\n%q", out)
	}
	t.Logf("server ended %v after Ctrl-C; the tail of its roster:\n%s", took.Round(time.Millisecond), lastLines(out, 6))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func TestWorkshopFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string // "" = accepted
	}{
		{[]string{"server", "--workshop", "--max-attendees", "40", "--idle-limit", "10m"}, ""},
		{[]string{"server", "--workshop", "--plain", "--backend", "sim", "7000"}, ""},
		{[]string{"server", "--max-attendees", "40"}, "go with --workshop"},
		{[]string{"server", "--idle-limit", "1m"}, "go with --workshop"},
		{[]string{"server", "--workshop", "--max-attendees", "0"}, "give at least 1"},
		{[]string{"server", "--workshop", "--idle-limit", "0s"}, "must be positive"},
		{[]string{"server", "--workshop", "--lesson", "bad-rkey"}, ""}, // the room's plan
		{[]string{"server", "--workshop", "--lesson", "no-remote-read"}, ""},
		{[]string{"server", "--workshop", "--tour", "atomic", "--lesson", "bad-rkey"}, "--lesson bad-rkey runs on the write tour"},
		{[]string{"server", "--workshop", "--track", "manual"}, "the attendees' choice"},
		{[]string{"server", "--workshop", "--notify", "imm"}, "the attendees' choice"},
		{[]string{"server", "--workshop", "--timeout", "5s"}, "--idle-limit, not --timeout"},
		{[]string{"client", "10.0.0.1", "--workshop"}, "not defined"},
		{[]string{"server", "--workshop", "--tour", "atomic"}, ""},
		{[]string{"server", "--workshop", "--tour", "read"}, ""},
		{[]string{"server", "--workshop", "--tour", "ud"}, "--workshop --tour ud is not supported"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := parseArgs(tt.args, func(string) string { return "" }, io.Discard)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("got %v, want an error saying %q", err, tt.err)
			case tt.err == "" && !o.workshop:
				t.Fatalf("--workshop not set: %+v", o)
			}
		})
	}
}
