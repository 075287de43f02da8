package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// TestUnalignedAddNeverBlamesAnotherClient: in atomic-unaligned the
// FETCH_AND_ADD's post fails, so its old value is never filled in and the
// CMP_AND_SWP's compare (old + 2) misses. Seen in tmux on a demo with
// one client: the screen said "another client did" and "FETCH_AND_ADD
// found 0". It says the add never ran.
func TestUnalignedAddNeverBlamesAnotherClient(t *testing.T) {
	p := newLessonPair(t, steps.NotifySend, "", "atomic-unaligned", 0)
	if err := p.cli.Predict(0); err != nil {
		t.Fatal(err)
	}
	p.runTurns(t, -1)
	note := noteOf(p.cli, "poll-cmp-swap")
	if strings.Contains(note, "another client") || !strings.Contains(note, "never ran") {
		t.Errorf("poll-cmp-swap note: %q", note)
	}
	r := p.cli.Snapshot().Result
	if r == nil || !strings.Contains(r.Summary.EN, "FETCH_AND_ADD did not run") || strings.Contains(r.Summary.EN, "someone else") || r.Summary.ZH == "" {
		t.Errorf("client result %+v", r)
	}
}
