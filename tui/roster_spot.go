package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/workshop"
)

// The spotlight: one attendee's side of the connection on the whole
// screen, for the projector — the C call of the step they are on, the
// server's live state of their connection, the timeline and the wire —
// while the room goes on. Enter on a roster row opens it, Esc closes it.

// spotKey handles a key in the spotlight.
func (m *workshopModel) spotKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case msg.String() == "esc" || msg.String() == "enter":
		m.spot = false
	case key.Matches(msg, m.keys.Lang):
		m.lang = nextLang(m.lang)
		m.keys = newKeyMap(m.lang)
	case key.Matches(msg, m.keys.Quit):
		m.spot = false
		return m.quit()
	}
	return nil
}

// spotlight is the spotlight's lines: a header naming the attendee and
// where they are, the call and the timeline above, the state and the
// wire below, and the keys.
func (m *workshopModel) spotlight() []string {
	st, d := m.styles, m.detail
	var row workshop.Row
	for _, r := range m.roster.rows {
		if r.N == m.detailN {
			row = r
		}
	}
	head := fmt.Sprintf("%s  #%d %s %s  %s %s  %s", st.Header.R("rdmatour workshop"), row.N,
		termtext.Safe(spotWho(row)), row.Backend, text.Text{EN: "step", ZH: "步骤"}.In(m.lang),
		workshop.StepBar(row.Ran, row.Steps), row.PhaseCell(m.lang))
	// The row's whole message · observed, which the roster cuts.
	what := termtext.WrapAll([]string{termtext.Safe(row.What(m.lang))}, m.w, "  ")
	what = what[:min(len(what), 2)]
	body := max(m.h-2-len(what), 0)
	top, bottom := body/2, body-body/2
	lw, rw := m.w/2, m.w-m.w/2
	sel := fmt.Sprintf("#%d · ", row.N)
	out := []string{termtext.Fit(head, m.w)}
	for _, l := range what {
		out = append(out, st.Dim.R(termtext.Fit(l, m.w)))
	}
	out = append(out, termtext.JoinColumns(
		pane.Frame(st, sel+d.call.Title, d.call.Lines, lw, top, d.call.Top, false),
		pane.Frame(st, sel+d.timeline.Title, d.timeline.Lines, rw, top, d.timeline.Top, false))...)
	out = append(out, termtext.JoinColumns(
		pane.Frame(st, sel+d.state.Title, d.state.Lines, lw, bottom, d.state.Top, false),
		pane.Frame(st, sel+d.wire.Title, d.wire.Lines, rw, bottom, d.wire.Top, false))...)
	help := text.Text{EN: "esc back to the roster  l language  q end the workshop", ZH: "esc 返回名单  l 语言  q 结束 workshop"}.In(m.lang)
	return append(out, st.Dim.R(termtext.Fit(strings.TrimSpace(help), m.w)))
}

// spotWho names the attendee in the spotlight's header: their name and
// address, or the address alone.
func spotWho(row workshop.Row) string {
	if row.Name == "" {
		return row.Addr.String()
	}
	return row.Name + " (" + row.Addr.String() + ")"
}
