package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// Running the tour: which step is current, which runs next, and running
// it on a goroutine of its own (stepDoneMsg brings the outcome back).

// curStep is the step the explanation and the call pane are about: the
// running one, else the one just run, else the first.
func (m *model) curStep() (side, idx int) {
	switch {
	case m.look.on:
		return m.look.side, m.look.idx
	case m.run.on:
		return m.run.side, m.run.idx
	case m.run.lastIdx >= 0:
		return m.run.lastSide, m.run.lastIdx
	case !m.demo && m.snaps[0].Next > 0:
		// Steps ran before this model saw them (or the tour ended).
		return 0, min(m.snaps[0].Next, len(m.snaps[0].Steps)) - 1
	}
	side, idx, ok := m.nextTurn()
	if !ok {
		return 0, 0
	}
	return side, idx
}

// nextTurn is the session index and step index the next keypress runs;
// ok is false when the tour is over (or failed).
func (m *model) nextTurn() (side, idx int, ok bool) {
	if m.end.err != nil {
		return 0, 0, false
	}
	if !m.demo {
		s := m.snaps[0]
		if s.Done || s.Next >= len(s.Steps) {
			return 0, 0, false
		}
		return 0, s.Next, true
	}
	if m.planPos >= len(m.plan) {
		return 0, 0, false
	}
	t := m.plan[m.planPos]
	side = 0
	if t.Side == steps.Client {
		side = 1
	}
	return side, t.Index, true
}

func (m *model) runNext() tea.Cmd {
	if m.run.on {
		m.run.keyWhileWaiting = true
		return nil
	}
	if m.quitting {
		return nil
	}
	m.run.keyWhileWaiting = false
	if _, _, pending := pane.PendingPrediction(m.snaps, m.demo); pending {
		// The lesson asks first: show its question rather than run.
		m.page.ShowLesson, m.page.ShowGlossary = m.page.LessonDoc, false
		if m.narrow() {
			m.scr.focus = tabExplain
		}
		return nil
	}
	side, idx, ok := m.nextTurn()
	if !ok {
		return nil
	}
	sess := m.sessions[side]
	if d, _ := sess.Done(); d {
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.run.on, m.run.side, m.run.idx, m.run.cancel = true, side, idx, cancel
	m.run.wait, m.run.onPeer = m.peerWait(side, idx) // once per step: WaitFor builds the peer's tour
	m.run.stepAt = m.now()
	m.spotNextStep()
	m.scr.side = side
	m.page.ShowLesson = false // the explanation follows the step; L brings the lesson back
	m.page.ShowGlossary = false
	m.paneAt(slot{pane.Explain, 0}).Follow()
	m.paneAt(slot{pane.Call, 0}).Follow()
	m.refresh()
	return func() tea.Msg {
		out, err := sess.RunNext(ctx)
		return stepDoneMsg{side: side, idx: idx, out: out, err: err}
	}
}

func (m *model) stepDone(msg stepDoneMsg) tea.Cmd {
	m.run.on, m.run.keyWhileWaiting = false, false
	if m.run.cancel != nil {
		m.run.cancel()
		m.run.cancel = nil
	}
	m.run.lastSide, m.run.lastIdx = msg.side, msg.idx
	if m.demo && msg.err == nil {
		m.planPos++
	}
	if msg.err != nil && !errors.Is(msg.err, steps.ErrTourOver) {
		m.end.errs[msg.side] = msg.err
		if !m.quitting {
			id := ""
			if st := m.sessions[msg.side].Steps(); msg.idx < len(st) {
				id = string(st[msg.idx].ID)
			}
			m.end.err = &TourError{Side: m.sessions[msg.side].Config().Role, StepID: id,
				Explain: steps.ExplainIn(msg.err, text.EN), Err: msg.err}
		}
	}
	m.refresh()
	sec := steps.SectionNone
	if t := m.tours[msg.side]; msg.idx >= 0 && msg.idx < len(t) {
		sec = t[msg.idx].Section
	}
	m.noticeChanges(msg.side, sec)
	return nil
}

// allDone says whether every tour finished without error.
func (m *model) allDone() bool {
	for _, s := range m.sessions {
		d, f := s.Done()
		if !d || f {
			return false
		}
	}
	return m.end.err == nil
}
