package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
)

// --auto in the full-screen UI: the steps run one after another by
// themselves, each left on screen for a moment so the learner sees it go
// by (the keys still scroll, switch language and quit).

// defaultAutoDelay is how long a finished step stays on screen before
// the next one starts in an --auto run.
const defaultAutoDelay = 700 * time.Millisecond

// autoStepMsg asks for the next step of an --auto run. gen is the
// schedule it belongs to: only the latest counts.
type autoStepMsg struct{ gen int }

// autoNext schedules the next step of an --auto run, if there is one. A
// new schedule replaces any pending one: Enter runs a step at once, and
// its end must not start a second chain of ticks beside the first (each
// Enter doubled the pace).
func (m *model) autoNext() tea.Cmd {
	if !m.auto.on || m.quitting || m.end.err != nil {
		return nil
	}
	if _, _, more := m.nextTurn(); !more {
		return nil
	}
	m.auto.gen++
	gen := m.auto.gen
	return tea.Tick(m.auto.delay, func(time.Time) tea.Msg { return autoStepMsg{gen} })
}

// autoStep runs the step an --auto tick asks for, unless a newer schedule
// replaced the tick.
func (m *model) autoStep(msg autoStepMsg) tea.Cmd {
	if msg.gen != m.auto.gen {
		return nil
	}
	return m.runNext()
}

// tourConfig is the configuration the tour runs with (the first
// session's; the zero Config when the model has no session, in tests).
func (m *model) tourConfig() steps.Config {
	if len(m.sessions) == 0 {
		return steps.Config{}
	}
	return m.sessions[0].Config()
}
