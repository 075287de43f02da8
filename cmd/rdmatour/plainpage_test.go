package main

import (
	"strings"
	"testing"
	"time"
)

// The plain runner prints the explanation pages rendered, as the TUI
// shows them: headings as headings, not raw Markdown ("## What the call
// does"), and Chinese soft line breaks joined without a space.
func TestPlainPagesAreRendered(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		p := start(t, nil, "demo", "--backend", "sim", "--plain", "--auto", "--lang", lang, "--port", freePort(t))
		if code := p.wait(t, 60*time.Second); code != 0 {
			t.Fatalf("%s: exit %d:\n%s", lang, code, p.out)
		}
		out := p.out.String()
		heading := map[string]string{"en": "What the call does", "zh": "这个调用做什么"}[lang]
		if !strings.Contains(out, "    "+heading+"\n    ──") {
			t.Errorf("%s: no rendered heading %q", lang, heading)
		}
		for _, l := range strings.Split(out, "\n") {
			if s := strings.TrimSpace(l); strings.HasPrefix(s, "# ") || strings.HasPrefix(s, "## ") || strings.Contains(s, "&amp;") {
				t.Errorf("%s: raw Markdown in plain output: %q", lang, l)
				break
			}
		}
	}
}
