package main

import (
	"strings"
	"testing"
	"time"
)

// TestWorkshopRevealInTmux: a lesson room's screen at the projector's
// 100×30 says what the room runs and counts the answers without showing
// them; r reveals the picks next to what happened; v opens the revote,
// whose answers come in as the second round; n moves the room to the
// next lesson.
func TestWorkshopRevealInTmux(t *testing.T) {
	tmux := newTermPair(t).tmux // a tmux server of its own (humanpace_test.go)
	port := freePort(t)
	tmux("new-session", "-d", "-x", "100", "-y", "30", binPath+" server "+port+" --workshop --backend sim --lesson bad-rkey; echo EXIT=$?; sleep 60")
	waitScreen := func(want string) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if s := tmux("capture-pane", "-p"); strings.Contains(s, want) {
				return s
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("the screen never showed %q:\n%s", want, tmux("capture-pane", "-p"))
		return ""
	}
	waitScreen("--tour write --lesson bad-rkey")
	attend := func(name, pick string) {
		c := start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "60s", "--name", name, "--predict", pick)
		c.wait(t, 60*time.Second)
	}
	for i, pick := range []string{"1", "1", "2"} {
		attend("a"+string(rune('0'+i)), pick)
	}
	s := waitScreen("answered: 3 first votes, 0 second votes")
	if strings.Contains(s, "█ 2") {
		t.Fatalf("the picks show before r:\n%s", s)
	}
	tmux("send-keys", "r")
	s = waitScreen("happened (the server's view of each QP)")
	for _, want := range []string{"1  ██ 2", "IBV_WC_REM_ACCESS_ERR", "█ 3"} {
		if !strings.Contains(s, want) {
			t.Errorf("the revealed tally lacks %q:\n%s", want, s)
		}
	}
	tmux("send-keys", "v")
	waitScreen("round 2")
	attend("a0", "2")
	waitScreen("answered: 3 first votes, 1 second votes")
	tmux("send-keys", "n")
	waitScreen("--tour write --lesson out-of-bounds")
	waitScreen("4 done") // nobody left in the room: q asks nothing
	tmux("send-keys", "q")
	s = waitScreen("EXIT=0")
	if !strings.Contains(s, "live objects left = 0") {
		t.Errorf("after q:\n%s", s)
	}
}
