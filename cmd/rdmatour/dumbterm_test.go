package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestDumbTerminalGetsPlainText is T9 of the hostile review: on a real
// terminal (script(1) gives the tour a pty) with TERM=dumb, the tour
// prints plain text and ends; no cursor addressing (ESC [ row ; col H),
// which a dumb terminal shows as garbage.
func TestDumbTerminalGetsPlainText(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("needs script(1)")
	}
	log := filepath.Join(t.TempDir(), "typescript")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-q", "-e", "-c", binPath+" demo --port "+freePort(t)+" --backend sim --auto --brief", log)
	cmd.Env = append(os.Environ(), "TERM=dumb", "LANG=C")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the demo on a dumb terminal: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(`\x1b\[[0-9]*;[0-9]*H`).FindAll(raw, -1)); n > 0 {
		t.Errorf("TERM=dumb got %d cursor addressing sequences", n)
	}
	if !regexp.MustCompile(`rdmatour: TERM=dumb: this terminal cannot move the cursor, so the tour is printed as plain text`).Match(raw) {
		t.Errorf("no line says why the tour is plain text:\n%s", raw)
	}
	if !regexp.MustCompile(`tour complete`).Match(raw) {
		t.Errorf("no plain end line:\n%s", raw)
	}
}

// TestCursorless: TERM=dumb, and a terminfo entry without cup, print
// plain text; a terminal with cup, and one terminfo does not know, keep
// the full-screen UI.
func TestCursorless(t *testing.T) {
	if _, err := exec.LookPath("tput"); err != nil {
		t.Skip("needs tput(1)")
	}
	for _, tt := range []struct {
		term  string
		plain bool
	}{
		{"dumb", true}, {"xterm-256color", false}, {"vt100", false}, {"no-such-terminal-here", false}, {"", false},
	} {
		if got, why := cursorless(tt.term); got != tt.plain || got != (why.EN != "") {
			t.Errorf("cursorless(%q) = %v (%q), want %v", tt.term, got, why.EN, tt.plain)
		}
	}
	// An entry with no cup, compiled here with tic(1).
	if _, err := exec.LookPath("tic"); err != nil {
		t.Skip("needs tic(1)")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "nocup.src")
	os.WriteFile(src, []byte("nocup|a test terminal without cursor addressing,\n\tcols#80, lines#24, bel=^G,\n"), 0o644)
	if out, err := exec.Command("tic", "-o", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("tic: %v\n%s", err, out)
	}
	t.Setenv("TERMINFO", dir)
	if got, why := cursorless("nocup"); !got || !regexp.MustCompile(`TERM=nocup: its terminfo entry has no cursor addressing \(cup\)`).MatchString(why.EN) {
		t.Errorf("nocup: %v %q, want plain text and why", got, why.EN)
	}
}
