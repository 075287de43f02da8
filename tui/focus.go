package tui

import (
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// Focus: which pane tab and shift+tab reach, and the narrow layout's tab
// bar. Every pane of every layout is in the cycle, the narrow layout's
// C call pane too (it sits above the tabs): a long call is scrolled and
// zoomed like any other pane.

// Tabs of the narrow layout; callFocus is the C call pane above them,
// last in the cycle (tab from Wire, shift+tab from Steps).
const (
	tabSteps = iota
	tabExplain
	tabState
	tabTimeline
	tabWire
	numTabs
	callFocus = numTabs
)

// focusables lists the panes tab cycles through in the current layout.
func (m *model) focusables() []slot {
	if m.presenter() {
		return []slot{{pane.Call, 0}, {pane.Explain, 0}, {pane.State, 0}, {pane.State, 1}, {pane.Timeline, 0}}
	}
	if m.narrow() {
		side := m.shownSide()
		return []slot{{pane.Steps, side}, {pane.Explain, 0}, {pane.State, side}, {pane.Timeline, 0}, {pane.Wire, side}, {pane.Call, 0}}
	}
	if m.demo {
		return []slot{{pane.Steps, 0}, {pane.State, 0}, {pane.Call, 0}, {pane.Explain, 0}, {pane.Timeline, 0}, {pane.Steps, 1}, {pane.State, 1}}
	}
	return []slot{{pane.Steps, 0}, {pane.Call, 0}, {pane.Explain, 0}, {pane.State, 0}, {pane.Timeline, 0}, {pane.Wire, 0}}
}

// tab is the tab the narrow layout shows below the call: the focused
// one, or while the call pane has the focus the one shown before.
func (m *model) tab() int {
	if m.scr.focus < numTabs {
		return m.scr.focus
	}
	return min(m.scr.lastTab, numTabs-1)
}

// moveFocus is tab (d = 1) and shift+tab (d = -1).
func (m *model) moveFocus(d int) {
	if m.scr.focus < numTabs {
		m.scr.lastTab = m.scr.focus
	}
	n := len(m.focusables())
	m.scr.focus = (min(m.scr.focus, n-1) + n + d) % n
}

// tabBar is the narrow layout's tabs, the call pane's mark last (it is
// next after Wire), wrapped to the lines it needs (in both languages
// the labels are long), then the spotlight's note if any.
func (m *model) tabBar(w int) []string {
	st := m.styles
	names := []string{
		text.Text{EN: "Steps", ZH: "步骤"}.Label(m.lang), text.Text{EN: "Explain", ZH: "讲解"}.Label(m.lang), text.Text{EN: "State", ZH: "状态"}.Label(m.lang),
		text.Text{EN: "Timeline", ZH: "时序"}.Label(m.lang), text.Text{EN: "Wire", ZH: "线上报文"}.Label(m.lang),
		"▲ C", // the call pane above: its own title says what it is
	}
	active := m.tab()
	if m.scr.focus >= numTabs {
		active = callFocus
	}
	var items []string
	for i, n := range names {
		switch {
		case i == active && st.NoColor:
			items = append(items, "["+n+"]")
		case i == active:
			items = append(items, st.TabActive.R(" "+n+" "))
		default:
			items = append(items, st.TabIdle.R(" "+n+" "))
		}
	}
	if m.demo {
		sides := [2]string{"server", "client"}
		sides[m.scr.side] = st.Bold.R("[" + sides[m.scr.side] + "]")
		items = append(items, "s: "+sides[0]+"|"+sides[1])
	}
	var out []string
	line := ""
	for _, it := range items {
		if line != "" && termtext.Width(line+" "+it) > w {
			out = append(out, termtext.Fit(line, w))
			line = ""
		}
		line += " " + it
	}
	out = append(out, termtext.Fit(line, w))
	// What came forward by itself says so, under the tabs (spot.go).
	if note := m.spotNote(); note != "" {
		for _, l := range termtext.Wrap(note, w-1) {
			out = append(out, termtext.Fit(m.styles.Running.R(" "+l), w))
		}
	}
	return out
}

// tabBarHeight is how many lines the tab bar takes at w cells.
func (m *model) tabBarHeight(w int) int { return len(m.tabBar(w)) }

// wholeTitle: a title too long for a pane w cells wide ends in "…" in
// the frame (pane.Frame). In a pane narrower than the screen z shows it
// whole; in one as wide as the screen the pane's first lines give it
// whole: nothing is cut without a way to read the rest.
func wholeTitle(st pane.Styles, c pane.Content, w int) pane.Content {
	if termtext.Width(c.Title) <= w-6 {
		return c
	}
	var head []string
	for _, l := range termtext.Wrap(c.Title, w-4) {
		head = append(head, st.Title.R(l))
	}
	c.Lines = append(head, c.Lines...)
	if c.Top > 0 {
		c.Top += len(head)
	}
	return c
}

// wholeTitleLines is how many lines wholeTitle adds to pane p when it is
// w cells wide (0 when its title fits the frame).
func (m *model) wholeTitleLines(p slot, w int) int {
	if m.in == nil {
		return 0
	}
	t := m.in.Content(p.kind, p.side, w-4, 0).Title
	if termtext.Width(t) <= w-6 {
		return 0
	}
	return len(termtext.Wrap(t, w-4))
}
