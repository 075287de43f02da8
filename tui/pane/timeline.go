package pane

import (
	"sort"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// Timeline merges both sides' messages (the demo sees each message from
// both ends; show it once).
func (in *Input) Timeline() []steps.TimelineEntry {
	if len(in.Snaps) == 1 {
		return in.Snaps[0].Timeline
	}
	srv, cli := in.Snaps[0].Timeline, in.Snaps[1].Timeline
	used := make([]bool, len(srv))
	all := append([]steps.TimelineEntry(nil), srv...)
	for _, e := range cli {
		dup := false
		for i, s := range srv {
			if !used[i] && s.Label == e.Label && s.FromServer == e.FromServer {
				used[i], dup = true, true
				// One message, two ends' views of it (the client's
				// WRITE: where it went; the server: no CPU there).
				all[i] = mergeDetails(all[i], e)
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

// mergeDetails is a message seen by both ends: the sender's detail
// first, then the receiver's where it says something else.
func mergeDetails(srv, cli steps.TimelineEntry) steps.TimelineEntry {
	first, second := srv, cli
	if !srv.FromServer {
		first, second = cli, srv
	}
	out := srv
	// The message happened when it was sent: the receiver may note it
	// only later (the server sees the SEND when it polls), after the
	// ACK the sender already has.
	if cli.Time.Before(out.Time) {
		out.Time = cli.Time
	}
	join := func(a, b string) string {
		switch {
		case a == "":
			return b
		case b == "" || strings.HasPrefix(a, b):
			return a
		case strings.HasPrefix(b, a): // "qpn=…" and "qpn=…, 56 B private data"
			return b
		}
		return a + "\n" + b
	}
	out.Detail = join(first.Detail, second.Detail)
	out.DetailZH = join(orEN(first), orEN(second))
	return out
}

// orEN is an entry's Chinese detail, or its English one (values only).
func orEN(e steps.TimelineEntry) string {
	if e.DetailZH != "" {
		return e.DetailZH
	}
	return e.Detail
}

// TimelineLines draws server | client with an arrow per message, each
// detail wrapped and centred under it (never cut).
func (in *Input) TimelineLines(w int) []string {
	st := in.Styles
	out := []string{st.Bold.R("server") + strings.Repeat(" ", max(1, w-12)) + st.Bold.R("client")}
	entries := in.Timeline()
	if len(entries) == 0 {
		return append(out, "", st.Dim.R(termtext.Center(text.Text{EN: "no messages yet", ZH: "还没有消息"}.In(in.Lang), w)))
	}
	for _, e := range entries {
		style := st.Call
		if e.Fate != steps.FateSent || strings.Contains(e.Label, "NAK") {
			style = st.Err // refused or never delivered
		}
		label := termtext.Safe(e.Label)
		if e.Fate != steps.FateSent {
			label += " ✗"
		}
		if termtext.Width(label) > w-6 {
			for _, l := range termtext.Wrap(label, w-2) {
				out = append(out, style.R(termtext.Center(l, w)))
			}
			label = ""
		}
		out = append(out, style.R(arrowLine(e, " "+label+" ", w)))
		details := in.timelineDetail(e)
		if f := in.fateText(e.Fate); f != "" {
			details = append(details, f)
		}
		for _, d := range details {
			for _, l := range termtext.Wrap(termtext.Safe(d), w) {
				out = append(out, st.Dim.R(termtext.Center(l, w)))
			}
		}
	}
	return out
}

// arrowLine is one message's arrow: from its sender to the other side;
// a message that never left is drawn dashed and reaches no one.
func arrowLine(e steps.TimelineEntry, label string, w int) string {
	rule := "─"
	if e.Fate != steps.FateSent {
		rule = "┄"
	}
	n := max(0, w-2-termtext.Width(label))
	l, r := n/2, n-n/2
	gone := e.Fate == steps.FateNeverSent || e.Fate == steps.FateLost // reaches no one
	switch {
	case gone && e.FromServer:
		return "├" + strings.Repeat(rule, l) + label + strings.Repeat(" ", r+1)
	case gone:
		return strings.Repeat(" ", l+1) + label + strings.Repeat(rule, r) + "┤"
	case e.FromServer:
		return "├" + strings.Repeat(rule, l) + label + strings.Repeat(rule, r) + "▶"
	}
	return "◀" + strings.Repeat(rule, l) + label + strings.Repeat(rule, r) + "┤"
}

// fateText says what became of a message that was not delivered.
func (in *Input) fateText(f steps.Fate) string {
	switch f {
	case steps.FateNeverSent:
		return text.Text{EN: "flushed: the QP was already in ERR, never sent", ZH: "被 flush：QP 已处于 ERR，根本没有发出"}.In(in.Lang)
	case steps.FateFlushed:
		return text.Text{EN: "flushed after the error: never completed", ZH: "出错后被 flush：没有完成"}.In(in.Lang)
	case steps.FateLost:
		return text.Text{EN: "lost on the wire: it never reached the peer", ZH: "在线上丢了：没有到达对端"}.In(in.Lang)
	}
	return ""
}

// timelineDetail is an entry's detail in the UI's language(s).
func (in *Input) timelineDetail(e steps.TimelineEntry) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, strings.Split(s, "\n")...)
		}
	}
	switch {
	case in.Lang == text.ZH:
		add(orEN(e))
	case in.Lang == text.Both && e.DetailZH != "" && e.DetailZH != e.Detail:
		add(e.Detail)
		add(e.DetailZH)
	default:
		add(e.Detail)
	}
	return out
}
