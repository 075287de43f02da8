package tui

import (
	"github.com/rdmatour/rdmatour/steps"

	"github.com/rdmatour/rdmatour/guide"
)

// While a step waits, the call pane says on what: the network, or the
// peer — and then what the peer's user must do, from the tour plan
// (steps.Session.WaitFor). A run key pressed meanwhile is answered with
// a note (model.keyWhileWaiting) instead of being dropped silently.

// peerWait is what the peer must do for step idx of side to end, when the
// wait is on a person. In the demo the plan has already run the peer's
// step, so every wait there is on the network.
func (m *model) peerWait(side, idx int) (steps.PeerWait, bool) {
	if m.demo || side >= len(m.sessions) {
		return steps.PeerWait{}, false
	}
	return m.sessions[side].WaitFor(idx)
}

// waitingLines is the call pane's head while step idx of side runs.
func (m *model) waitingLines(side, idx, w int) []string {
	st := m.styles
	head := steps.Text{EN: "running", ZH: "执行中"}
	var hint steps.Text
	waits := idx < len(m.tourOf(side)) && m.tourOf(side)[idx].Waits
	pw, onPeer := m.peerWait(side, idx)
	switch {
	case onPeer:
		head = steps.Text{EN: "running — waiting for the peer:", ZH: "执行中 —— 等待对端："}
		hint = guide.WhatPeerMustDo(pw)
	case waits:
		head = steps.Text{EN: "running (waiting for the network)", ZH: "执行中（等待网络）"}
	}
	var out []string
	for i, l := range m.inLangs(head, w-2) {
		if i == 0 {
			l = m.spin.View() + " " + l
		} else {
			l = "  " + l
		}
		out = append(out, st.Running.R(l))
	}
	for _, l := range m.inLangs(hint, w-2) {
		out = append(out, st.Bold.R("  "+l))
	}
	for _, l := range m.inLangs(pw.Timer, w-2) {
		out = append(out, st.Dim.R("  "+l))
	}
	return out
}

// footer is the key help; after a run key pressed while a step still
// waits, the note saying why nothing happened (until the step ends).
func (m *model) footer(w int) string {
	if !m.keyWhileWaiting || !m.running {
		return fit(m.help.ShortHelpView(m.keys.ShortHelp()), w)
	}
	pw, onPeer := m.peerWait(m.runSide, m.runIdx)
	note := guide.WaitNote(pw, onPeer).In(textLang(m.lang))
	return fit(m.styles.Running.R(" ⏳ "+note), w)
}

// inLangs wraps t in the UI's language(s): both lines in "both".
func (m *model) inLangs(t steps.Text, w int) []string {
	if t.EN == "" {
		return nil
	}
	if m.lang == steps.LangBoth {
		out := wrap(t.EN, w)
		if t.ZH != "" && t.ZH != t.EN {
			out = append(out, wrap(t.ZH, w)...)
		}
		return out
	}
	return wrap(t.In(textLang(m.lang)), w)
}
