package tui

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// lessonDemo builds the one-terminal demo of a lesson on two simulated
// NICs: the server binds port 0 and runs up to listen (through the
// model, so the plan stays in step), then the client is pointed at the
// port the server got.
func lessonDemo(t *testing.T, lesson string, lang text.Lang, w, h int, environ ...string) *model {
	t.Helper()
	m := lessonDemoAsking(t, lesson, lang, w, h, environ...)
	answerPredictions(t, m)
	return m
}

// lessonDemoAsking is lessonDemo with the lesson's questions still open
// (the server's step up to listen ran with the server's answered).
func lessonDemoAsking(t *testing.T, lesson string, lang text.Lang, w, h int, environ ...string) *model {
	t.Helper()
	srvNIC, cliNIC := sim.New(sim.Options{}), sim.New(sim.Options{})
	srv, err := steps.NewSession(steps.Config{Role: steps.Server, Provider: srvNIC, Lesson: lessonNamed(lesson),
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Timeout: 10 * time.Second, BackendWhy: text.Same("test")})
	if err != nil {
		t.Fatal(err)
	}
	// The client needs the port before the model exists; its address is
	// fixed up below, so start with a placeholder.
	placeholder := netip.MustParseAddrPort("127.0.0.1:1")
	cli, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: cliNIC, Lesson: lessonNamed(lesson), Server: placeholder, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close(); cli.Close() })
	m := newTestModel(t, []steps.Runner{srv, cli}, lang, w, h, environ...)
	answerPredictions(t, m)
	for i := 0; ; i++ {
		if i > 10 || m.end.err != nil {
			t.Fatalf("server never listened: %v", m.end.err)
		}
		if m.run.lastIdx >= 0 && m.run.lastSide == 0 && srv.Steps()[m.run.lastIdx].ID == "listen" {
			break
		}
		press(t, m, "enter")
	}
	local := srv.Snapshot().CMID.Local
	ap, err := netip.ParseAddrPort(local)
	if err != nil || ap.Port() == 0 {
		t.Fatalf("server bound to %q: %v", local, err)
	}
	cli.Close()
	cli, err = steps.NewSession(steps.Config{Role: steps.Client, Provider: cliNIC, Lesson: lessonNamed(lesson), Server: ap, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	m.sessions[1] = cli
	m.tours = nil
	m.refresh()
	return m
}

// answerPredictions answers every pending question with its second
// choice, by key.
func answerPredictions(t *testing.T, m *model) {
	t.Helper()
	for i := 0; ; i++ {
		if _, _, ok := pane.PendingPrediction(m.snaps, m.demo); !ok {
			return
		}
		if i > 2 {
			t.Fatal("a prediction stays pending after its key")
		}
		press(t, m, "2")
	}
}

func TestLessonViews(t *testing.T) {
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		for _, sz := range sizes {
			name := lang.String() + "/" + strconv.Itoa(sz[0]) + "x" + strconv.Itoa(sz[1])
			m := lessonDemo(t, "bad-rkey", lang, sz[0], sz[1])
			wantTitle := map[text.Lang]string{text.EN: "WRITE with the wrong rkey", text.ZH: "用错 rkey 做 WRITE"}[lang]
			wantBlock := map[text.Lang]string{text.EN: pane.ExpectedEN, text.ZH: pane.ExpectedZH}[lang]

			// Before the client's first step: the lesson page.
			screen := m.render()
			checkFrame(t, name+"/start", screen, sz[0], sz[1])
			plain := ansi.Strip(screen)
			for _, want := range []string{"bad-rkey", wantTitle} {
				if !strings.Contains(plain, want) {
					t.Errorf("%s/start: missing %q:\n%s", name, want, plain)
				}
			}

			// The WRITE comes back with a remote access error: the point.
			runUntil(t, m, 1, "poll-write")
			ss := m.snaps[1].Steps[m.run.lastIdx]
			if ss.State != steps.Succeeded || ss.Outcome == nil || !ss.Outcome.Expected {
				t.Fatalf("%s: poll-write: %+v", name, ss)
			}
			if m.page.ShowLesson {
				t.Errorf("%s: the explanation did not follow the step", name)
			}
			screen = m.render()
			checkFrame(t, name+"/error", screen, sz[0], sz[1])
			plain = ansi.Strip(screen)
			for _, want := range []string{"remote access error", wantBlock, wantTitle, "bad-rkey"} {
				if !strings.Contains(plain, want) {
					t.Errorf("%s/error: missing %q:\n%s", name, want, plain)
				}
			}
			if strings.Contains(plain, "✗") {
				t.Errorf("%s/error: an expected error is marked as a failure:\n%s", name, plain)
			}

			// L shows the lesson page again, and back.
			press(t, m, "L")
			if !m.page.ShowLesson {
				t.Errorf("%s: L did not show the lesson page", name)
			}
			checkFrame(t, name+"/lesson-page", m.render(), sz[0], sz[1])
			press(t, m, "L")
			if m.page.ShowLesson {
				t.Errorf("%s: L did not go back to the step page", name)
			}

			// To the end: the lesson completes, and the verdict is success.
			for i := 0; m.planPos < len(m.plan); i++ {
				if i > 100 || m.end.err != nil {
					t.Fatalf("%s: stuck at %d: %v", name, m.planPos, m.end.err)
				}
				press(t, m, "enter")
				checkFrame(t, name+"/turn"+strconv.Itoa(i), m.render(), sz[0], sz[1])
			}
			if err := m.verdict(); err != nil {
				t.Errorf("%s: verdict %v", name, err)
			}
			plain = ansi.Strip(m.render())
			want := map[text.Lang]string{text.EN: "Lesson complete", text.ZH: "课程完成"}[lang]
			if !strings.Contains(plain, want) {
				t.Errorf("%s/end: missing %q:\n%s", name, want, plain)
			}
		}
	}
}

// The steps pane marks expected errors with "!" (a textual mark, so it
// survives NO_COLOR), distinct from ✓ and ✗.
func TestExpectedErrorMark(t *testing.T) {
	for _, environ := range [][]string{nil, {"NO_COLOR=1"}} {
		m := lessonDemo(t, "bad-rkey", text.EN, 160, 50, environ...)
		runUntil(t, m, 1, "poll-write")
		lines, _ := m.stepsLines(1, 40)
		found := false
		for i, l := range lines {
			if m.snaps[1].Steps[i].ID == "poll-write" {
				found = strings.HasPrefix(ansi.Strip(l), "! ")
			}
		}
		if !found {
			t.Errorf("NO_COLOR=%v: poll-write is not marked with !:\n%s", environ != nil, ansi.Strip(strings.Join(lines, "\n")))
		}
		if environ != nil && strings.Contains(m.render(), "\x1b[") {
			t.Error("escape sequences with NO_COLOR")
		}
	}
}

// The lesson page is shown at the start, and its title in the pane.
func TestLessonPageAtStart(t *testing.T) {
	m := lessonDemo(t, "bad-rkey", text.Both, 160, 50)
	m.page.ShowLesson = true
	plain := ansi.Strip(m.render())
	for _, want := range []string{"lesson-bad-rkey", "· bad-rkey · L: step page", "用错 rkey 做 WRITE", "WRITE with the wrong rkey"} {
		if !strings.Contains(plain, want) {
			t.Errorf("missing %q:\n%s", want, plain)
		}
	}
	// Help lists L in both languages.
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		m.setLang(lang)
		m.scr.showHelp = true
		help := ansi.Strip(m.render())
		want := map[text.Lang]string{text.EN: "lesson page ↔ step page", text.ZH: "课程讲解 ↔ 步骤讲解"}[lang]
		if !strings.Contains(help, want) {
			t.Errorf("%s help: missing %q:\n%s", lang, want, help)
		}
	}
	m.scr.showHelp = false
	// In the plain tour, L lists the lessons (footer: "L lessons").
	r := newRig(t, steps.NotifySend)
	// Tall enough for the whole list of lessons under the tour's steps.
	p := newTestModel(t, []steps.Runner{r.srv}, text.EN, 120, 48)
	if plain := ansi.Strip(p.render()); !strings.Contains(plain, "L lessons") || strings.Contains(plain, "lesson page") {
		t.Errorf("footer without \"L lessons\":\n%s", plain)
	}
	// L opens the page index on the lessons; r on a lesson's page runs it.
	press(t, p, "L")
	plain = ansi.Strip(p.render())
	for _, want := range []string{"Lessons (r on a lesson's page runs it)", "▸ An atomic on an unaligned address", "SEND with no posted RECV", "WRITE with the wrong rkey"} {
		if !strings.Contains(plain, want) {
			t.Errorf("L in the plain tour: missing %q:\n%s", want, plain)
		}
	}
}
