package tui

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// Bytes a peer wrote reach the screen escaped: the result banner, the
// call pane's results and the timeline cannot carry a terminal control
// sequence, a bell, a C1 control or a bidi override.
func TestPeerBytesEscaped(t *testing.T) {
	hostile := []struct{ name, bytes, shown string }{
		{"clear and recolour", "\x1b[2J\x1b[31mRED", `\e[2J\e[31mRED`},
		{"bell", "ding\a", `ding\a`},
		{"set title (OSC)", "\x1b]0;pwned\a", `\e]0;pwned\a`},
		{"C1 CSI", "a\u009b2Jb", `a\x9b2Jb`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`},
		{"carriage return", "safe\rEVIL", `safe\rEVIL`},
	}
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		for _, h := range hostile {
			r := newRig(t, steps.NotifySend)
			m := newTestModel(t, []steps.Runner{r.srv}, lang, 160, 50, "NO_COLOR=1")
			s := m.snaps[0]
			s.Result = &steps.Result{Via: steps.NotifySend, Message: privdata.PeerBytes(h.bytes), Notice: privdata.PeerBytes(h.bytes)}
			s.Timeline = []steps.TimelineEntry{{Label: "SEND", Detail: h.bytes}}
			s.Steps[0].State = steps.Succeeded
			s.Steps[0].Outcome = &steps.Outcome{Call: "printf(\"%s\", recv_buf)", Results: []steps.KV{{Name: text.Same("buffer"), Value: text.Same(h.bytes)}}}
			m.snaps[0] = s
			m.sessions = nil // keep the hand-made snapshot
			m.run.lastIdx = 0
			screen := m.render()
			for _, bad := range []string{"\x1b", "\a", "\r", "\u009b", "\u202e"} {
				if strings.Contains(screen, bad) {
					t.Errorf("%s/%s: %q reached the screen", lang, h.name, bad)
				}
			}
			// The banner, the call pane and the timeline each show it.
			if n := strings.Count(screen, h.shown); n < 3 {
				t.Errorf("%s/%s: %q shown %d times, want the banner, the results and the timeline:\n%s", lang, h.name, h.shown, n, screen)
			}
		}
	}
}

// Text the steps already escaped (a result, a timeline detail) is shown
// as it is: its backslashes are not doubled.
func TestEscapedOnce(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`\e[2J\aRED`, `\e[2J\aRED`},
		{"plain 中文 text", "plain 中文 text"},
		{"raw\x1b[2J", `raw\e[2J`},
		{"a\\b\u202e", `a\b\u202e`},
		{"bad \xff utf-8", `bad \xff utf-8`},
	} {
		if got := termtext.Safe(tt.in); got != tt.want {
			t.Errorf("termtext.Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
