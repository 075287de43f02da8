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
		label := " " + peerText(e.Label) + " "
		n := max(0, w-2-width(label))
		l, r := n/2, n-n/2
		var line string
		if e.FromServer {
			line = "├" + strings.Repeat("─", l) + label + strings.Repeat("─", r) + "▶"
		} else {
			line = "◀" + strings.Repeat("─", l) + label + strings.Repeat("─", r) + "┤"
		}
		out = append(out, st.Call.R(line))
		if e.Detail != "" {
			out = append(out, st.Dim.R(center(peerText(e.Detail), w)))
		}
	}
	return out
}
