package pane

import (
	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/text"
)

// waitingLines is the call pane's head while step idx of side runs.
func (in *Input) waitingLines(side, idx, w int) []string {
	st := in.Styles
	head := text.Text{EN: "running", ZH: "执行中"}
	var hint text.Text
	waits := idx < len(in.tourOf(side)) && in.tourOf(side)[idx].Waits
	pw, onPeer := in.peerWait(side, idx)
	switch {
	case onPeer:
		head = text.Text{EN: "running — waiting for the peer:", ZH: "执行中 —— 等待对端："}
		hint = guide.WhatPeerMustDo(pw)
	case waits:
		head = text.Text{EN: "running (waiting for the network)", ZH: "执行中（等待网络）"}
	}
	var out []string
	for i, l := range in.inLangs(head, w-2) {
		if i == 0 {
			l = in.Spinner + " " + l
		} else {
			l = "  " + l
		}
		out = append(out, st.Running.R(l))
	}
	// The peer's command first: while it has not shown up, starting it
	// is what the learner must do before any Enter there.
	for _, l := range in.inLangs(guide.PeerCommand(pw), w-2) {
		out = append(out, st.Bold.R("  "+l))
	}
	for _, l := range in.inLangs(hint, w-2) {
		out = append(out, st.Bold.R("  "+l))
	}
	for _, l := range in.inLangs(pw.Timer, w-2) {
		out = append(out, st.Dim.R("  "+l))
	}
	return out
}
