package tui

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
)

// curStep is the step the explanation and the call pane are about: the
// running one, else the one just run, else the first.
func (m *model) curStep() (side, idx int) {
	switch {
	case m.look.on:
		return m.look.side, m.look.idx
	case m.running:
		return m.runSide, m.runIdx
	case m.lastIdx >= 0:
		return m.lastSide, m.lastIdx
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

func (m *model) stepStatus(side, idx int) (steps.StepStatus, bool) {
	if side >= len(m.snaps) || idx < 0 || idx >= len(m.snaps[side].Steps) {
		return steps.StepStatus{}, false
	}
	return m.snaps[side].Steps[idx], true
}

func (m *model) roleName(side int) string { return m.snaps[side].Role.String() }

func (m *model) stepTitle(ss steps.StepStatus) string {
	switch m.lang {
	case steps.LangZH:
		return ss.Title.In(steps.LangZH.String())
	case steps.LangBoth:
		return ss.Title.EN + " · " + ss.Title.ZH
	}
	return ss.Title.EN
}

func (m *model) stepsTitle(side int) string {
	t := title(m.lang, "Steps", "步骤")
	if m.demo {
		t = m.roleName(side) + " · " + t
	}
	done := 0
	for _, ss := range m.snaps[side].Steps {
		if ss.State == steps.Succeeded {
			done++
		}
	}
	return fmt.Sprintf("%s %d/%d", t, done, len(m.snaps[side].Steps))
}

// stepsLines lists the tour with status marks; cur is the line to keep in
// view.
func (m *model) stepsLines(side, _ int) ([]string, int) {
	st := m.styles
	snap := m.snaps[side]
	nextSide, nextIdx, hasNext := m.nextTurn()
	lines := make([]string, 0, len(snap.Steps))
	cur := 0
	for i, ss := range snap.Steps {
		mark := " "
		switch ss.State {
		case steps.Active:
			mark = st.Running.R(m.spin.View())
		case steps.Succeeded:
			mark = st.OK.R("✓")
			if expectedError(ss) {
				mark = st.Expected.R("!")
			}
		case steps.FailedState:
			mark = st.Err.R("✗")
		}
		text := fmt.Sprintf("%2d %s", i+1, m.stepTitle(ss))
		isNext := hasNext && !m.running && nextSide == side && nextIdx == i
		switch {
		case m.look.on && m.look.side == side && m.look.idx == i:
			mark = st.Expected.R("◆")
			text = st.Expected.R(text)
			cur = i
		case m.look.on && isNext:
			text = st.Dim.R(text) // the present's next step is not what is shown
		case ss.State == steps.Active || (m.running && m.runSide == side && m.runIdx == i):
			text = st.Running.R(text)
			cur = i
		case isNext:
			mark = st.Bold.R("›")
			text = st.Bold.R(text)
			cur = i
		case ss.State == steps.FailedState:
			text = st.Err.R(text)
			cur = i
		case expectedError(ss):
			text = st.Expected.R(text)
		case ss.State == steps.Pending:
			text = st.Dim.R(text)
		}
		lines = append(lines, mark+" "+text)
	}
	if snap.Done && !snap.Failed && !m.look.on {
		cur = len(lines) - 1
	}
	return lines, cur
}

// expectedError says the step ended with the error its lesson is about.
func expectedError(ss steps.StepStatus) bool {
	return ss.State == steps.Succeeded && ss.Outcome != nil && ss.Outcome.Expected
}
