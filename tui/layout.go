package tui

import (
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// The layouts. A layout is a tree of nodes computed from the terminal
// size and the model's mode (narrow, wide, demo): Update walks its leaves
// to size the panes and give them their content, View walks the same
// tree to draw them. Computing it is pure, so both get the same tree.

// node is a piece of the body: one pane, the tab bar, or pieces stacked
// top to bottom or side by side.
type node struct {
	slot   slot
	w, h   int
	tabBar bool
	row    bool // kids side by side; otherwise stacked
	kids   []node
}

func leaf(p slot, w, h int) node     { return node{slot: p, w: w, h: h} }
func stack(w, h int, k ...node) node { return node{w: w, h: h, kids: k} }
func row(w, h int, k ...node) node   { return node{w: w, h: h, row: true, kids: k} }

// leaves lists the panes of the tree with their sizes.
func (n node) leaves() []node {
	if n.kids == nil {
		if n.tabBar {
			return nil
		}
		return []node{n}
	}
	var out []node
	for _, k := range n.kids {
		out = append(out, k.leaves()...)
	}
	return out
}

// layout is the body's tree for a body of w×h cells.
func (m *model) layout(w, h int) node {
	switch {
	case m.scr.zoomed:
		return leaf(m.focused(), w, h)
	case m.presenter():
		return m.presenterLayout(w, h)
	case m.narrow():
		return m.narrowLayout(w, h)
	case m.demo:
		return m.demoLayout(w, h)
	case w >= 150:
		return m.wideLayout(w, h)
	}
	return m.mediumLayout(w, h)
}

// narrowLayout: the current step's call on top, then one tab. A call
// title too long for the frame is given whole inside the pane
// (wholeTitle): the pane grows by those lines, so the call stays in view.
func (m *model) narrowLayout(w, h int) node {
	barH := m.tabBarHeight(w)
	callH := min(7, max(4, h/3)) + m.wholeTitleLines(slot{pane.Call, 0}, w)
	callH = max(4, min(callH, h-barH-6))
	return stack(w, h,
		leaf(slot{pane.Call, 0}, w, callH),
		node{tabBar: true, w: w, h: barH},
		leaf(m.focusables()[m.tab()], w, h-callH-barH))
}

// wideLayout: three columns for one session.
func (m *model) wideLayout(w, h int) node {
	cw := split(w, 27, 36, 37)
	c1, c2, c3 := split(h, 55, 45), split(h, 35, 65), split(h, 65, 35)
	return row(w, h,
		stack(cw[0], h, leaf(slot{pane.Steps, 0}, cw[0], c1[0]), leaf(slot{pane.Timeline, 0}, cw[0], c1[1])),
		stack(cw[1], h, leaf(slot{pane.Call, 0}, cw[1], c2[0]), leaf(slot{pane.Explain, 0}, cw[1], c2[1])),
		stack(cw[2], h, leaf(slot{pane.State, 0}, cw[2], c3[0]), leaf(slot{pane.Wire, 0}, cw[2], c3[1])))
}

// mediumLayout: two columns for one session.
func (m *model) mediumLayout(w, h int) node {
	cw := split(w, 45, 55)
	stepsH := min(len(m.snaps[0].Steps)+3, h*40/100)
	lh := split(h-stepsH, 35, 65)
	rh := split(h, 62, 38)
	bw := split(cw[1], 45, 55)
	return row(w, h,
		stack(cw[0], h,
			leaf(slot{pane.Steps, 0}, cw[0], stepsH),
			leaf(slot{pane.Call, 0}, cw[0], lh[0]),
			leaf(slot{pane.Explain, 0}, cw[0], lh[1])),
		stack(cw[1], h,
			leaf(slot{pane.State, 0}, cw[1], rh[0]),
			row(cw[1], rh[1], leaf(slot{pane.Timeline, 0}, bw[0], rh[1]), leaf(slot{pane.Wire, 0}, bw[1], rh[1]))))
}

// demoLayout: server column, shared middle, client column.
func (m *model) demoLayout(w, h int) node {
	cw := split(w, 31, 38, 31)
	side := func(i int) node {
		cwi := cw[i*2]
		sh := min(len(m.snaps[i].Steps)+3, h*45/100)
		return stack(cwi, h, leaf(slot{pane.Steps, i}, cwi, sh), leaf(slot{pane.State, i}, cwi, h-sh))
	}
	mh := split(h, 30, 45, 25)
	mid := stack(cw[1], h,
		leaf(slot{pane.Call, 0}, cw[1], mh[0]),
		leaf(slot{pane.Explain, 0}, cw[1], mh[1]),
		leaf(slot{pane.Timeline, 0}, cw[1], mh[2]))
	return row(w, h, side(0), mid, side(1))
}

// presenterLayout: the demo on a projector. Left, the C call and the
// explanation; right, the server's live state over the client's, then
// the timeline. Each side's state pane anchors at the section its step
// changed: the client's WRITE is in the call pane while the bytes land,
// highlighted, in the server's data buffer.
func (m *model) presenterLayout(w, h int) node {
	cw := split(w, 52, 48)
	lh := split(h, 42, 58)
	rh := split(h, 42, 31, 27) // the server's buffer whole (42 B at 8 a row) under a two-line footer
	return row(w, h,
		stack(cw[0], h, leaf(slot{pane.Call, 0}, cw[0], lh[0]), leaf(slot{pane.Explain, 0}, cw[0], lh[1])),
		stack(cw[1], h,
			leaf(slot{pane.State, 0}, cw[1], rh[0]),
			leaf(slot{pane.State, 1}, cw[1], rh[1]),
			leaf(slot{pane.Timeline, 0}, cw[1], rh[2])))
}

// draw renders a layout tree from the panes' current state.
func (m *model) draw(n node) []string {
	switch {
	case n.tabBar:
		return m.tabBar(n.w)
	case n.kids == nil:
		p, ok := m.scr.panes[n.slot]
		if !ok {
			return termtext.Block(nil, n.w, n.h)
		}
		// The tree's size, not the pane's: the frame is exact even if
		// the pane was sized for another tree.
		return p.View(m.styles, n.w, n.h, m.isFocused(n.slot))
	case n.row:
		cols := make([][]string, len(n.kids))
		for i, k := range n.kids {
			cols[i] = m.draw(k)
		}
		return termtext.JoinColumns(cols...)
	}
	var out []string
	for _, k := range n.kids {
		out = append(out, m.draw(k)...)
	}
	return out
}

// split divides n into parts by weights.
func split(n int, weights ...int) []int {
	total := 0
	for _, w := range weights {
		total += w
	}
	out := make([]int, len(weights))
	used := 0
	for i, w := range weights {
		out[i] = n * w / total
		used += out[i]
	}
	out[len(out)-1] += n - used
	return out
}
