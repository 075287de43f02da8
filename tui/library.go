package tui

import (
	"fmt"
	"net/netip"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// The knowledge layer's wiring: P opens the page index (pane.Library),
// L in the plain tour opens it on the lessons, and r on a lesson's page
// starts that lesson.

// LessonRestart is what Run returns when the learner chose a lesson in
// the demo: both sides are closed, and the caller starts the tour again
// from the start with Lesson (the demo's two sides are this process).
type LessonRestart struct{ Lesson *steps.Lesson }

func (e *LessonRestart) Error() string {
	return "tui: restart the demo with --lesson " + e.Lesson.Name
}

// newLibrary builds the page index once, with the steps of the tours on
// screen first.
func (m *model) newLibrary() *pane.Library {
	var ids []string
	for _, s := range m.sessions {
		for _, st := range s.Steps() {
			ids = append(ids, string(st.ID))
		}
	}
	return pane.NewLibrary(m.page.Docs, m.page.Markdown, ids)
}

// onScreenPage is the ID of the page the explanation pane shows.
func (m *model) onScreenPage() string {
	switch {
	case m.page.ShowGlossary:
		return docs.GlossaryID
	case m.page.ShowLesson && m.page.Lesson != "":
		return pane.LessonPageID(m.page.Lesson)
	}
	side, idx := m.curStep()
	if t := m.tours[side]; idx < len(t) {
		return string(t[idx].ID)
	}
	return ""
}

// revealedLesson is the lesson page the library may show whole: the
// lesson running, once no prediction is pending.
func (m *model) revealedLesson() string {
	if m.page.Lesson == "" {
		return ""
	}
	if _, _, pending := pane.PendingPrediction(m.snaps, m.demo); pending {
		return ""
	}
	return pane.LessonPageID(m.page.Lesson)
}

// pageKey handles the keys that choose what to read: L (the lesson's
// page, or in the plain tour the lessons to pick from), P (the index),
// T (the glossary). It says whether msg was one of them.
func (m *model) pageKey(msg tea.KeyPressMsg) bool {
	k := m.keys
	switch {
	case key.Matches(msg, k.Lesson) && m.page.Lesson == "":
		m.scr.lib.OpenLessons(m.onScreenPage())
	case key.Matches(msg, k.Lesson):
		m.page.ShowLesson, m.page.ShowGlossary = !m.page.ShowLesson, false
		m.paneAt(slot{pane.Explain, 0}).Follow()
	case key.Matches(msg, k.Pages):
		m.scr.lib.OpenPages(m.onScreenPage())
	case key.Matches(msg, k.Glossary):
		m.page.ShowGlossary, m.page.ShowLesson = !m.page.ShowGlossary, false
		m.paneAt(slot{pane.Explain, 0}).Follow()
	default:
		return false
	}
	return true
}

// libraryKey handles a key while the library is open: Ctrl+C quits; q
// and l work as everywhere else unless the learner is typing a search.
func (m *model) libraryKey(msg tea.KeyPressMsg) tea.Cmd {
	switch k := msg.String(); {
	case k == "ctrl+c", k == "q" && !m.scr.lib.Typing():
		return m.quit()
	case k == "l" && !m.scr.lib.Typing():
		m.setLang(nextLang(m.lang))
		return nil
	}
	ev := m.scr.lib.Update(msg)
	if ev.RunLesson != "" {
		return m.runLesson(ev.RunLesson)
	}
	return nil
}

// runLesson starts lesson name: in the demo, both sides again from the
// start (Run returns a LessonRestart); elsewhere the peer is another
// process, so the library says what to run on each side.
func (m *model) runLesson(name string) tea.Cmd {
	l, err := steps.LessonByName(name)
	switch {
	case err != nil:
		// lesson-manual-qp is a track: it has no mistake to pick.
		m.scr.lib.Tell(text.Text{EN: "This page is a track, not a lesson: start both sides with --track manual.",
			ZH: "这一页是一种做法（track），不是课程：两端都加 --track manual 启动。"})
	case m.replaying():
		m.scr.lib.Tell(text.Text{EN: "A replay shows a recorded run and cannot run a lesson. Run it with:\n  rdmatour demo --lesson " + name,
			ZH: "回放只显示录下来的运行，不能运行课程。要运行它：\n  rdmatour demo --lesson " + name})
	case m.demo:
		m.end.restart = &LessonRestart{Lesson: &l}
		return m.quit()
	default:
		m.scr.lib.Tell(m.lessonCommands(l))
	}
	return nil
}

// lessonCommands says how to start lesson l when the peer is another
// process, which this one cannot restart: q here, then one command on
// each side, from this side's own config.
func (m *model) lessonCommands(l steps.Lesson) text.Text {
	cfg := m.sessions[0].Config()
	snap := m.snaps[0]
	port := cfg.Bind.Port()
	if cfg.Role == steps.Client {
		port = cfg.Server.Port()
	}
	flags := fmt.Sprintf("--port %d --backend %s --lesson %s", port, snap.Backend, l.Name)
	addr := "SERVER_ADDRESS" // a server listening on every address does not know which one the client can reach
	switch {
	case cfg.Role == steps.Client:
		addr = cfg.Server.Addr().String()
	case cfg.Bind.Addr().IsValid() && !cfg.Bind.Addr().IsUnspecified():
		addr = cfg.Bind.Addr().String()
	case snap.CMID != nil && snap.CMID.Connected:
		if ap, err := netip.ParseAddrPort(snap.CMID.Local); err == nil {
			addr = ap.Addr().String()
		}
	}
	server := "rdmatour server " + flags
	if cfg.Role == steps.Server && cfg.Bind.Addr().IsValid() && !cfg.Bind.Addr().IsUnspecified() {
		server = "rdmatour server --bind " + addr + " " + flags
	}
	cmds := strings.Join([]string{"  server: " + server, "  client: rdmatour client " + addr + " " + flags}, "\n")
	return text.Text{
		EN: "The other side is another process: it cannot be restarted from here. Quit both sides (q), then run\n" + cmds,
		ZH: "另一端是另一个进程，这里没法重启它。两端都退出（q），然后运行\n" + cmds,
	}
}
