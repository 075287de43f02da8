package tui

import (
	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
)

// While a step waits, the call pane says on what: the network, or the
// peer — and then what the peer's user must do, from the tour plan
// (steps.Session.WaitFor). A run key pressed meanwhile is answered with
// a note (runState.keyWhileWaiting) instead of being dropped silently.

// peerWait is what the peer must do for step idx of side to end, when the
// wait is on a person; runNext reads it once per step (run.wait). In the demo the plan has already run the peer's
// step, so every wait there is on the network.
func (m *model) peerWait(side, idx int) (steps.PeerWait, bool) {
	if m.demo || side >= len(m.sessions) {
		return steps.PeerWait{}, false
	}
	return m.sessions[side].WaitFor(idx)
}

// footer is the key help; after a run key pressed while a step still
// waits, the note saying why nothing happened (until the step ends).
func (m *model) footer(w int) string {
	if f := m.scr.edit.form; f != nil {
		return termtext.Fit(m.styles.Dim.R(f.Keys()), w) // every key is the form's now
	}
	if !m.run.keyWhileWaiting || !m.run.on {
		return termtext.Fit(m.help.ShortHelpView(m.keys.ShortHelp()), w)
	}
	note := guide.WaitNote(m.run.wait, m.run.onPeer).In(m.lang)
	return termtext.Fit(m.styles.Running.R(" ⏳ "+note), w)
}
