package steps_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// TestPeerBytesNeverReachTextUnescaped sends terminal control sequences as
// the message in every notify mode and checks that no text the server
// makes from them (results, timeline, the result) holds a raw control byte.
func TestPeerBytesNeverReachTextUnescaped(t *testing.T) {
	const hostile = "\x1b]0;pwned\a\x1b[2J\u202egnp.exe\r\x00tail"
	for _, n := range []steps.Notify{steps.NotifySend, steps.NotifyDoorbell, steps.NotifyImm} {
		t.Run(n.String(), func(t *testing.T) {
			p := newPair(t, n, strings.TrimSuffix(hostile, "\x00tail"))
			p.runTurns(t, -1)
			snap := p.srv.Snapshot()
			var texts []string
			for _, st := range snap.Steps {
				if st.Outcome == nil {
					continue
				}
				texts = append(texts, st.Outcome.Call)
				for _, kv := range st.Outcome.Results {
					texts = append(texts, kv.Value.EN, kv.Value.ZH)
				}
			}
			for _, e := range snap.Timeline {
				texts = append(texts, e.Detail)
			}
			texts = append(texts, fmt.Sprint(snap.Result.Message), fmt.Sprintf("%s", snap.Result.Notice), snap.Result.Message.String())
			for _, s := range texts {
				if i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r == '\u202e' }); i >= 0 {
					t.Errorf("raw control byte %q at %d in %q", s[i], i, s)
				}
			}
			if got, want := snap.Result.Message.String(), `\e]0;pwned\a\e[2J\u202egnp.exe\r`; got != want {
				t.Errorf("buffer shown as %q, want %q", got, want)
			}
		})
	}
}
