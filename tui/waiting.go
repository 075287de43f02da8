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

// footer is the key help, wrapped to the lines it needs (one binding is
// never split); after a run key pressed while a step still waits, the
// note saying why nothing happened (until the step ends), wrapped too.
func (m *model) footer(w int) []string {
	if m.scr.lib.IsOpen() {
		return []string{m.scr.lib.KeysLine(m.styles, w)} // the library's keys, not the tour's
	}
	if m.run.keyWhileWaiting && m.run.on {
		note := guide.WaitNote(m.run.wait, m.run.onPeer).In(m.lang)
		var out []string
		for _, l := range termtext.Wrap("⏳ "+note, w-1) {
			out = append(out, termtext.Fit(m.styles.Running.R(" "+l), w))
		}
		// As tall as the key help it replaces: the panes above keep
		// their size while the note shows.
		for n := len(m.helpLines(w)); len(out) < n; {
			out = append(out, termtext.Fit("", w))
		}
		return out
	}
	return m.helpLines(w)
}

// helpLines flows the short help's bindings into lines of w cells.
func (m *model) helpLines(w int) []string {
	hs := m.help.Styles
	sep := hs.ShortSeparator.Inline(true).Render(m.help.ShortSeparator)
	var out []string
	line := ""
	for _, kb := range m.keys.ShortHelp() {
		if !kb.Enabled() {
			continue
		}
		item := hs.ShortKey.Inline(true).Render(kb.Help().Key) + " " + hs.ShortDesc.Inline(true).Render(kb.Help().Desc)
		switch {
		case line == "":
			line = item
		case termtext.Width(line+sep+item) <= w:
			line += sep + item
		default:
			out = append(out, termtext.Fit(line, w))
			line = item
		}
	}
	return append(out, termtext.Fit(line, w))
}
