package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestEditFormInRealTerminal: `rdmatour demo` in tmux at 80×24. e on each
// step says it has nothing to edit until the first step that has (the
// server's create-cq); there the form opens and fits, an out-of-range
// depth is refused in words with the form still open, Esc leaves, and a
// depth in range applied shows as the learner's edit; the step then runs
// with it and its C says what the tour would have used.
func TestEditFormInRealTerminal(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-edit-%d", os.Getpid()))
	cmdline := fmt.Sprintf("%s demo --backend sim --lang en --port %d; echo \"EXIT=$?\"; exec sleep 600", bin, freePort(t))
	s.must("new-session", "-d", "-s", "rt", "-x", "80", "-y", "24", "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=", cmdline)
	sc, ok := s.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok })
	if !ok {
		t.Fatalf("no header after 10 s:\n%s", sc)
	}
	flat := func(sc string) string { return strings.Join(strings.Fields(sc), " ") }
	for i := 0; ; i++ {
		if i > 10 {
			t.Fatalf("no step with something to edit in the first 10:\n%s", sc)
		}
		s.must("send-keys", "-t", "rt", "e")
		sc, ok = s.waitFor(5*time.Second, func(sc string) bool {
			return strings.Contains(sc, "before it runs") || strings.Contains(flat(sc), "has nothing to edit")
		})
		if !ok {
			t.Fatalf("e did nothing visible:\n%s", sc)
		}
		if strings.Contains(sc, "before it runs") {
			break
		}
		done, _, _ := progress(sc)
		s.must("send-keys", "-t", "rt", "Enter")
		if sc, ok = s.waitFor(10*time.Second, func(sc string) bool { d, _, _ := progress(sc); return d > done }); !ok {
			t.Fatalf("step %d did not finish:\n%s", done+1, sc)
		}
	}
	checkFits(t, "form 80x24", sc, 80, 24)
	if !strings.Contains(sc, "Edit create-cq before it runs") || !strings.Contains(sc, "cqe") || !strings.Contains(sc, "0..131072") {
		t.Fatalf("the form is not create-cq's with its range:\n%s", sc)
	}
	// Out of range: refused in words, the form stays.
	s.must("send-keys", "-t", "rt", "BSpace", "BSpace", "BSpace", "BSpace", "9999999", "Enter")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "cqe: ") && strings.Contains(sc, "before it runs") })
	if !ok {
		t.Fatalf("an out-of-range depth was not refused in the form:\n%s", sc)
	}
	// Esc: the panes again, nothing edited.
	s.must("send-keys", "-t", "rt", "Escape")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return !strings.Contains(sc, "before it runs") })
	if !ok || strings.Contains(sc, "Your edit") {
		t.Fatalf("Esc did not leave the form as it was:\n%s", sc)
	}
	// In range: the learner's edit.
	s.must("send-keys", "-t", "rt", "e")
	if sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "before it runs") }); !ok {
		t.Fatalf("e did not open the form again:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "64", "Enter")
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, "Your edit") && strings.Contains(sc, "cqe") })
	if !ok {
		t.Fatalf("no edit after Enter:\n%s", sc)
	}
	checkFits(t, "edited 80x24", sc, 80, 24)
	// Run it: the call pane (first tab at 80×24 is the steps; the C call
	// shows in the explain tab's neighbour) — look for the C comment.
	done, _, _ := progress(sc)
	s.must("send-keys", "-t", "rt", "Enter")
	if sc, ok = s.waitFor(10*time.Second, func(sc string) bool { d, _, _ := progress(sc); return d > done }); !ok {
		t.Fatalf("create-cq did not run:\n%s", sc)
	}
	sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(flat(sc), "you: was") })
	if !ok {
		t.Errorf("the step's C does not mark the edit:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "q")
	if sc, ok = s.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") }); !ok {
		t.Fatalf("still running 10 s after q:\n%s", sc)
	}
}
