package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// typeKeys presses each key of s.
func typeKeys(t *testing.T, m *model, s string) {
	t.Helper()
	for _, r := range s {
		press(t, m, string(r))
	}
}

// In the demo, r on a lesson's page ends the program with a
// LessonRestart: the caller starts both sides again with that lesson.
func TestLessonStartsInTheDemo(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 120, 40)
	press(t, m, "L")
	typeKeys(t, m, "no-recv")
	press(t, m, "enter")
	if got := m.scr.lib.Reading(); got != "lesson-no-recv" {
		t.Fatalf("reading %q, want lesson-no-recv", got)
	}
	if s := ansi.Strip(m.render()); !strings.Contains(s, "r run this lesson") {
		t.Errorf("the lesson's page does not offer r:\n%s", s)
	}
	press(t, m, "r")
	if !m.quitting || m.end.restart == nil || m.end.restart.Lesson.Name != "no-recv" {
		t.Fatalf("r: quitting %v, restart %+v; want the demo to restart with no-recv", m.quitting, m.end.restart)
	}
	var lr *LessonRestart
	if err := error(m.end.restart); !errors.As(err, &lr) || !strings.Contains(err.Error(), "--lesson no-recv") {
		t.Errorf("restart error %v", err)
	}
}

// One side of a two-terminal run cannot restart its peer: r says what to
// run on each side, with this side's port and backend.
func TestLessonCommandsForTwoTerminals(t *testing.T) {
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		r := newRig(t, steps.NotifySend)
		m := newTestModel(t, []steps.Runner{r.cli}, lang, 100, 30)
		press(t, m, "L")
		typeKeys(t, m, "bad-rkey")
		press(t, m, "enter")
		press(t, m, "r")
		if m.quitting || m.end.restart != nil {
			t.Fatalf("%s: r in a one-side run quit or restarted", lang)
		}
		cfg := r.cli.Config()
		want := "rdmatour client " + cfg.Server.Addr().String()
		s := ansi.Strip(m.render())
		for _, w := range []string{"server: rdmatour server --port", "--lesson bad-rkey", want, map[text.Lang]string{text.EN: "cannot be restarted from here", text.ZH: "这里没法重启它"}[lang]} {
			if !strings.Contains(s, w) {
				t.Errorf("%s: missing %q:\n%s", lang, w, s)
			}
		}
	}
}

// The manual track's page is not a lesson: r says which flag runs it.
func TestTrackPageIsNotALesson(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 120, 40)
	press(t, m, "P")
	typeKeys(t, m, "lesson-manual-qp")
	press(t, m, "enter")
	press(t, m, "r")
	if m.quitting || !strings.Contains(ansi.Strip(m.render()), "--track manual") {
		t.Errorf("r on the manual track's page: quitting %v\n%s", m.quitting, ansi.Strip(m.render()))
	}
}

// Focus starts on the explanation in every layout, so T then z zooms the
// glossary; q typed into the search is a letter, not quit.
func TestFocusStartsOnTheExplanation(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 50}} {
		r := newRig(t, steps.NotifySend)
		for _, sessions := range [][]steps.Runner{{r.srv, r.cli}, {r.srv}} {
			m := newTestModel(t, sessions, text.EN, size[0], size[1])
			if f := m.focused(); f.kind != pane.Explain {
				t.Errorf("%dx%d, %d sessions: focus on %v, want the explanation", size[0], size[1], len(sessions), f)
			}
			press(t, m, "T")
			press(t, m, "z")
			if s := ansi.Strip(m.render()); !strings.Contains(s, "Glossary · T: step page") {
				t.Errorf("%dx%d: T z does not zoom the glossary:\n%s", size[0], size[1], s)
			}
		}
	}
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 80, 24)
	press(t, m, "P")
	typeKeys(t, m, "qp")
	if m.quitting || m.scr.lib.Query() != "qp" {
		t.Errorf("typing q in the search quit (%v) or was lost (query %q)", m.quitting, m.scr.lib.Query())
	}
}

// s swaps the side where one side is shown at a time, and is not offered
// where both are.
func TestSideKeyOnlyWhereOneSideShows(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	for _, c := range []struct {
		w, h int
		on   bool
	}{{80, 24, true}, {120, 40, false}, {100, 30, false}} {
		m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, c.w, c.h)
		if got := m.keys.Side.Enabled(); got != c.on {
			t.Errorf("%dx%d: s enabled %v, want %v", c.w, c.h, got, c.on)
		}
	}
}

// On a page, l changes the language as everywhere else; in the search it
// is a letter.
func TestLanguageKeyInTheLibrary(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 100, 30)
	press(t, m, "P")
	press(t, m, "l")
	if m.lang != text.EN || m.scr.lib.Query() != "l" {
		t.Fatalf("l in the search: lang %s, query %q", m.lang, m.scr.lib.Query())
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if m.scr.lib.Query() != "" {
		t.Fatalf("backspace left the query %q", m.scr.lib.Query())
	}
	press(t, m, "enter")
	press(t, m, "l")
	if m.lang != text.ZH || m.scr.lib.Reading() == "" {
		t.Errorf("l on a page: lang %s, reading %q", m.lang, m.scr.lib.Reading())
	}
	if s := ansi.Strip(m.render()); !strings.Contains(s, "Esc 返回") {
		t.Errorf("the page's keys are not in Chinese after l:\n%s", s)
	}
}

// On the server of a two-terminal run the commands name the address it
// listens on, --bind included, so that both can be pasted as they are.
func TestLessonCommandsOnTheServer(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv}, text.EN, 100, 30)
	press(t, m, "L")
	typeKeys(t, m, "no-recv")
	press(t, m, "enter")
	press(t, m, "r")
	bind := r.srv.Config().Bind
	s := strings.Join(strings.Fields(ansi.Strip(m.render())), " ")
	for _, w := range []string{
		fmt.Sprintf("server: rdmatour server --bind %s --port %d --backend sim --lesson no-recv", bind.Addr(), bind.Port()),
		fmt.Sprintf("client: rdmatour client %s --port %d --backend sim --lesson no-recv", bind.Addr(), bind.Port()),
	} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q:\n%s", w, ansi.Strip(m.render()))
		}
	}
}
