package main

import (
	"fmt"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorkshopScreenInTmux: the workshop's roster in a real terminal.
// Clients come and go; the roster shows them with their messages escaped;
// selecting one shows its side of the connection; q ends the workshop
// with everything released and the roster printed as a table.
func TestWorkshopScreenInTmux(t *testing.T) {
	tmux := newTermPair(t).tmux // a tmux server of its own (humanpace_test.go)
	port := freePort(t)
	results := filepath.Join(t.TempDir(), "room.csv")
	tmux("new-session", "-d", "-x", "120", "-y", "40", binPath+" server "+port+" --workshop --backend sim --results "+results+"; echo EXIT=$?; sleep 60")
	waitScreen := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			if s := tmux("capture-pane", "-p"); strings.Contains(s, want) {
				return s
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("the screen never showed %q:\n%s", want, tmux("capture-pane", "-p"))
		return ""
	}
	waitScreen("Roster")
	msgs := []string{"plain hello", "bell\a and \x1b[2J clear", "你好，RDMA"}
	for i, m := range msgs {
		c := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--message", m)
		if code := c.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("client %d exit %d:\n%s", i, code, c.out)
		}
	}
	s := waitScreen("3 done")
	// Without --name a client goes by this host's name (cut to what a
	// vote carries), and the roster shows it in place of the address.
	host, _ := os.Hostname()
	host = host[:min(len(host), privdata.MaxVoteName)]
	for _, want := range []string{`"plain hello"`, `"bell\a and \e[2J clear"`, `"你好，RDMA"`, " " + host + " ", " sim "} {
		if !strings.Contains(s, want) {
			t.Errorf("the roster lacks %q:\n%s", want, s)
		}
	}
	tmux("send-keys", "Down")
	s = waitScreen("#2 · Live state")
	if !strings.Contains(s, "REP") || !strings.Contains(s, "RDMA_WRITE") {
		t.Errorf("the selected attendee's timeline and wire are missing:\n%s", s)
	}
	tmux("send-keys", "s") // the results, now
	waitScreen("3 attendees' results in " + results)
	if b, err := os.ReadFile(results); err != nil || strings.Count(string(b), "\n") != 4 || !strings.Contains(string(b), "finished") {
		t.Errorf("s wrote %q (%v), want a header and 3 rows", b, err)
	}
	tmux("send-keys", "q") // nobody is in the room: no question
	s = waitScreen("EXIT=0")
	for _, want := range []string{"live objects left = 0", "roster: 3 done, 0 running, 0 stuck, 0 failed", "ended after", "3 attendees' results in"} {
		if !strings.Contains(s, want) {
			t.Errorf("after q the terminal lacks %q:\n%s", want, s)
		}
	}
	t.Log(fmt.Sprint("after q:\n", s))
}
