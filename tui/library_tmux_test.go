package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// startDemoInTmux builds the binary and runs `rdmatour demo --backend
// sim` in a w×h tmux pane in lang, waiting for its first screen.
func startDemoInTmux(t *testing.T, lang string, w, h int) *tmuxSession {
	t.Helper()
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-lib-%s-%d", lang, os.Getpid()))
	cmdline := fmt.Sprintf("%s demo --backend sim --lang %s --port %d; echo \"EXIT=$?\"; exec sleep 600", bin, lang, freePort(t))
	s.must("new-session", "-d", "-s", "rt", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=", cmdline)
	if sc, ok := s.waitFor(10*time.Second, func(sc string) bool { _, _, ok := progress(sc); return ok }); !ok {
		t.Fatalf("no header after 10 s:\n%s", sc)
	}
	return s
}

// expect sends keys (tmux key names; "text:..." is typed literally) and
// waits for want on the screen.
func (s *tmuxSession) expect(what, want string, keys ...string) string {
	s.t.Helper()
	for _, k := range keys {
		if lit, ok := strings.CutPrefix(k, "text:"); ok {
			s.must("send-keys", "-t", "rt", "-l", lit)
		} else {
			s.must("send-keys", "-t", "rt", k)
		}
	}
	sc, ok := s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, want) })
	if !ok {
		s.t.Fatalf("%s: %q not on screen after %v:\n%s", what, want, keys, sc)
	}
	return sc
}

// TestPageIndexInTmux drives P at 80×24 in a real terminal, in English
// and Chinese: the index, a search, Enter on a page, Tab and Enter on a
// link, Esc back to the page, to the index, and to the tour.
func TestPageIndexInTmux(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	cases := []struct {
		lang, index, query, title, link, tour string
	}{
		{"en", "Search: ▏", "rkey capab", "The rkey is a capability · concept-rkey", "· concept-pd", "Explain"},
		{"zh", "搜索：▏", "rkey 凭证", "rkey 是一种凭证 · concept-rkey", "· concept-pd", "讲解"},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			s := startDemoInTmux(t, c.lang, 80, 24)
			sc := s.expect("P", c.index, "P")
			checkFits(t, "index", sc, 80, 24)
			s.expect("search", "rkey", "text:"+c.query)
			sc = s.expect("enter", c.title, "Enter")
			checkFits(t, "page", sc, 80, 24)
			// The concept page links on; Tab picks the next link.
			sc = s.expect("tab", "▸ ", "Tab")
			if !strings.Contains(sc, "Tab/Shift-Tab") && !strings.Contains(sc, "Tab/Shift-Tab 选择") {
				t.Errorf("the link bar does not say how to choose a link:\n%s", sc)
			}
			s.must("send-keys", "-t", "rt", "Enter")
			sc, _ = s.waitFor(5*time.Second, func(sc string) bool { return !strings.Contains(sc, c.title) })
			if strings.Contains(sc, c.title) {
				t.Fatalf("Enter on a link did not open it:\n%s", sc)
			}
			s.expect("esc from the link", c.title, "Escape")
			s.expect("esc to the index", c.index[:len(c.index)-len("▏")], "Escape")
			sc = s.expect("esc to the tour", c.tour, "Escape")
			checkFits(t, "tour", sc, 80, 24)
			if strings.Contains(sc, c.index) {
				t.Errorf("Esc in the index did not close it:\n%s", sc)
			}
		})
	}
}

// TestLessonFromTheIndexInTmux: in the demo, L, a lesson, Enter and r
// start both sides again with that lesson.
func TestLessonFromTheIndexInTmux(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	s := startDemoInTmux(t, "en", 100, 30)
	s.expect("L", "Lessons (r on a lesson's page runs it)", "L")
	s.expect("choose", "SEND with no posted RECV", "text:no-recv", "Enter")
	sc := s.expect("r", "Lesson no-recv", "r")
	if d, _, ok := progress(sc); !ok || d != 0 {
		t.Errorf("the lesson does not start from the first step:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "q")
	if sc, ok := s.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") }); !ok {
		t.Fatalf("still running 10 s after q:\n%s", sc)
	}
}
