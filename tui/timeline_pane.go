package tui

import (
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// timeline merges both sides' messages (the demo sees each message from
// both ends; show it once).
func (m *model) timeline() []steps.TimelineEntry {
	if len(m.snaps) == 1 {
		return m.snaps[0].Timeline
	}
	srv, cli := m.snaps[0].Timeline, m.snaps[1].Timeline
	used := make([]bool, len(srv))
	all := append([]steps.TimelineEntry(nil), srv...)
	for _, e := range cli {
		dup := false
		for i, s := range srv {
			if !used[i] && s.Label == e.Label && s.FromServer == e.FromServer {
				used[i], dup = true, true
				break
			}
		}
		if !dup {
			all = append(all, e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.Before(all[j].Time) })
	return all
}

// timelineLines draws server | client with an arrow per message.
func (m *model) timelineLines(w int) []string {
	st := m.styles
	out := []string{st.Bold.R("server") + strings.Repeat(" ", max(1, w-12)) + st.Bold.R("client")}
	entries := m.timeline()
	if len(entries) == 0 {
		return append(out, "", st.Dim.R(center(tr(m.lang, "no messages yet", "还没有消息"), w)))
	}
	for _, e := range entries {
		label, rule, fate := " "+termSafe(e.Label)+" ", "─", m.fateText(e.Fate)
		if e.Fate != steps.FateSent {
			label, rule = " "+termSafe(e.Label)+" ✗ ", "┄" // not drawn as delivered
		}
		n := max(0, w-2-width(label))
		l, r := n/2, n-n/2
		var line string
		switch {
		case e.Fate == steps.FateNeverSent && e.FromServer:
			line = "├" + strings.Repeat(rule, l) + label + strings.Repeat(" ", r+1) // it never left
		case e.Fate == steps.FateNeverSent:
			line = strings.Repeat(" ", l+1) + label + strings.Repeat(rule, r) + "┤"
		case e.FromServer:
			line = "├" + strings.Repeat(rule, l) + label + strings.Repeat(rule, r) + "▶"
		default:
			line = "◀" + strings.Repeat(rule, l) + label + strings.Repeat(rule, r) + "┤"
		}
		style := st.Call
		if e.Fate != steps.FateSent || strings.Contains(e.Label, "NAK") {
			style = st.Err
		}
		out = append(out, style.R(line))
		for _, d := range []string{termSafe(e.Detail), fate} {
			if d != "" {
				out = append(out, st.Dim.R(center(d, w)))
			}
		}
	}
	return out
}

// fateText says what became of a message that was not delivered.
func (m *model) fateText(f steps.Fate) string {
	switch f {
	case steps.FateNeverSent:
		return tr(m.lang, "flushed: the QP was already in ERR, never sent", "被 flush：QP 已处于 ERR，根本没有发出")
	case steps.FateFlushed:
		return tr(m.lang, "flushed after the error: never completed", "出错后被 flush：没有完成")
	}
	return ""
}
