package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Quitting the full-screen tour before its end, by Ctrl-C or q, exits
// 130 as Ctrl-C does in plain mode. script(1) gives the binary a real
// pseudo-terminal, so the TUI (not the plain runner) runs.
func TestTUIQuitBeforeTheEndExits130(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("needs script(1) from util-linux for a pseudo-terminal")
	}
	for _, key := range []struct{ name, bytes string }{{"ctrl+c", "\x03"}, {"q", "q"}} {
		t.Run(key.name, func(t *testing.T) {
			t.Parallel()
			p := startRaw(t, script, "-qec", "env TERM=xterm-256color "+binPath+" demo --backend sim", "/dev/null")
			p.waitFor(t, "run next step", 20*time.Second)
			p.stdin.Write([]byte(key.bytes))
			code := p.wait(t, 20*time.Second)
			if code != 130 || !strings.Contains(p.out.String(), "rdmatour: interrupted; everything was released") {
				t.Errorf("exit %d, want 130 saying it was interrupted:\n%q", code, tail(p.out.String(), 400))
			}
		})
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
