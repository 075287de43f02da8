package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
)

// History: the learner selects a finished step ([ and ], or ↑/↓ while the
// steps pane has the focus) to see its C call, results, explanation and
// the state right after it, as each Session kept it (Session.StepSnapshot).
// A banner says which step is shown and how to get back; Esc (or Enter,
// which never runs a step from the past) returns to now. The tour keeps
// running underneath: the live snapshots are still read on every tick, a
// running step finishes and a peer's events still arrive — they show once
// the learner is back.

// lookBack is the step being looked at.
type lookBack struct {
	on        bool
	side, idx int // session index and step index
	// now are the live snapshots while the screen shows the past: the
	// header's progress stays the tour's.
	now []steps.Snapshot
}

// historyKeys are the bindings of history (in keyMap's language).
type historyKeys struct{ Earlier, Later, Now key.Binding }

func newHistoryKeys(lang string) historyKeys {
	t := func(en, zh string) string { return tr(lang, en, zh) }
	return historyKeys{
		Earlier: key.NewBinding(key.WithKeys("["), key.WithHelp("[ ]", t("look back", "回看"))),
		Later:   key.NewBinding(key.WithKeys("]")),
		Now:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", t("now", "回到当前"))),
	}
}

// finishedTurns are the steps that have finished, in the order they ran.
func (m *model) finishedTurns() []steps.Turn {
	var out []steps.Turn
	if m.demo {
		out = append(out, m.plan[:m.planPos]...)
		if m.planPos < len(m.plan) { // a failed turn does not advance planPos
			t := m.plan[m.planPos]
			if _, ok := m.sessions[sideIndex(t.Side)].StepSnapshot(t.Index); ok {
				out = append(out, t)
			}
		}
		return out
	}
	for i := range m.tours[0] {
		if _, ok := m.sessions[0].StepSnapshot(i); ok {
			out = append(out, steps.Turn{Side: m.sessions[0].Config().Role, Index: i})
		}
	}
	return out
}

func sideIndex(r steps.Role) int {
	if r == steps.Client {
		return 1
	}
	return 0
}

// historyKey handles the keys of history; it reports whether msg was one.
func (m *model) historyKey(msg tea.KeyPressMsg) bool {
	hk := m.keys.History
	onSteps := m.focused().kind == paneSteps
	switch {
	case key.Matches(msg, hk.Earlier), onSteps && key.Matches(msg, m.keys.Up):
		m.moveHistory(-1)
	case key.Matches(msg, hk.Later), onSteps && key.Matches(msg, m.keys.Down):
		m.moveHistory(+1)
	case m.look.on && (key.Matches(msg, hk.Now) || key.Matches(msg, m.keys.Next)):
		// Enter while looking back returns to now first: a step from
		// the past cannot be run again, and the next one should be run
		// with the present state in view.
		m.look = lookBack{}
		m.refresh()
	default:
		return false
	}
	return true
}

// moveHistory selects the finished step d steps earlier (d < 0) or later
// than the one shown; moving later than the last finished step is now.
func (m *model) moveHistory(d int) {
	turns := m.finishedTurns()
	pos := len(turns) // now
	if m.look.on {
		for i, t := range turns {
			if sideIndex(t.Side) == m.look.side && t.Index == m.look.idx {
				pos = i
			}
		}
	}
	pos += d
	switch {
	case len(turns) == 0 || pos >= len(turns):
		m.look = lookBack{}
	default:
		t := turns[max(pos, 0)]
		m.look = lookBack{on: true, side: sideIndex(t.Side), idx: t.Index}
		if m.demo {
			m.side = m.look.side
		}
	}
	m.pane(pane{paneExplain, 0}).follow()
	m.pane(pane{paneCall, 0}).follow()
	m.refresh()
}

// applyHistory replaces the live snapshots with the ones kept right after
// the selected step: in the demo, each side as it was at that moment (its
// last step run by then in the plan's order).
func (m *model) applyHistory() {
	if !m.look.on {
		return
	}
	m.look.now = append(m.look.now[:0], m.snaps...)
	if !m.demo {
		if snap, ok := m.sessions[0].StepSnapshot(m.look.idx); ok {
			m.snaps[0] = snap
		}
		return
	}
	last := [2]int{-1, -1}
	for _, t := range m.finishedTurns() {
		last[sideIndex(t.Side)] = t.Index
		if sideIndex(t.Side) == m.look.side && t.Index == m.look.idx {
			break
		}
	}
	for side, idx := range last {
		if snap, ok := m.sessions[side].StepSnapshot(idx); ok {
			m.snaps[side] = snap
		} else {
			m.snaps[side] = beforeFirstStep(m.snaps[side])
		}
	}
}

// liveSnap is side's live snapshot, also while looking back.
func (m *model) liveSnap(side int) steps.Snapshot {
	if m.look.on && side < len(m.look.now) {
		return m.look.now[side]
	}
	return m.snaps[side]
}

// beforeFirstStep is a side as it was before it ran anything: its tour,
// all pending, and no resources.
func beforeFirstStep(live steps.Snapshot) steps.Snapshot {
	s := steps.Snapshot{Role: live.Role, Notify: live.Notify, Lesson: live.Lesson, Track: live.Track,
		LessonTitle: live.LessonTitle, Backend: live.Backend, Simulated: live.Simulated, Why: live.Why, Wire: live.Wire}
	for _, ss := range live.Steps {
		s.Steps = append(s.Steps, steps.StepStatus{ID: ss.ID, Title: ss.Title, Call: ss.Call})
	}
	return s
}

// historyBanner is the marker shown while looking back.
func (m *model) historyBanner(w int) []string {
	if !m.look.on {
		return nil
	}
	n := m.look.idx + 1
	who := ""
	if m.demo {
		who = m.snaps[m.look.side].Role.String() + " "
	}
	en := fmt.Sprintf("looking at %sstep %d — press Esc for now ([ ] earlier/later)", who, n)
	zh := fmt.Sprintf("正在回看 %s第 %d 步 —— 按 Esc 回到当前（[ ] 上一步/下一步）", who, n)
	switch m.lang {
	case LangZH:
		return bannerLine(m.styles.Expected, "◆ ", zh, w)
	case LangBoth:
		return append(bannerLine(m.styles.Expected, "◆ ", en, w), bannerLine(m.styles.Expected, "  ", zh, w)...)
	}
	return bannerLine(m.styles.Expected, "◆ ", en, w)
}

// replayMark labels a replayed recording in the header: no device is
// open and no peer is there, whatever the recorded backend says.
func (m *model) replayMark() string {
	if len(m.sessions) == 0 || !m.sessions[0].Replaying() {
		return ""
	}
	return m.styles.Expected.R(tr(m.lang, "REPLAY", "回放")) + " "
}
