package pane

import "github.com/rdmatour/rdmatour/termtext"

// Kind names a pane.
type Kind int

// The panes.
const (
	Steps Kind = iota
	Explain
	Call
	State
	Timeline
	Wire
)

// Content is what a pane shows: its title, its lines, and the first line
// to show while the learner has not scrolled it.
type Content struct {
	Title string
	Lines []string
	Top   int
}

// Content is what pane k of side shows at inner size w×h.
func (in *Input) Content(k Kind, side, w, h int) Content {
	t, lines, top := in.content(k, side, w, h)
	return Content{Title: t, Lines: lines, Top: top}
}

// paneContent is what pane p shows at inner size w×h: its title, its
// lines, and the first line to show while the learner has not scrolled
// it (the current step in the middle, the newest message at the bottom,
// the live-state section the step changed at the top). No line is cut:
// what is wider than the pane wraps (wrapAll); only step titles, which
// are text, end in "…" when cut.
func (in *Input) content(k Kind, side, w, h int) (string, []string, int) {
	switch k {
	case Steps:
		lines, cur := in.stepsLines(side, w)
		return in.stepsTitle(side), lines, cur - h/2
	case Call:
		return in.callTitle(), termtext.WrapAll(in.callLines(w), w, "  "), 0
	case Explain:
		return in.explainTitle(), in.explainLines(w), 0
	case State:
		lines, anchor := in.StateLines(side, w)
		if in.Demo && !in.Narrow {
			// The demo's side columns have no wire pane of their own.
			lines = append(append(lines, ""), in.WireLines(side, w)...)
		}
		lines, anchor = wrapAnchored(lines, anchor, w)
		return in.stateTitle(side), lines, anchor
	case Timeline:
		lines := termtext.WrapAll(in.TimelineLines(w), w, "")
		return Title(in.Lang, "Timeline", "时序"), lines, len(lines) - h/2
	case Wire:
		lines := termtext.WrapAll(in.WireLines(side, w), w, "  ")
		return in.WireTitle(side), lines, len(lines) - h/2
	}
	return "", nil, 0
}

// wrapAnchored is wrapAll keeping anchor on the same line.
func wrapAnchored(lines []string, anchor, w int) ([]string, int) {
	out := make([]string, 0, len(lines))
	newAnchor := anchor
	for i, l := range lines {
		if i == anchor {
			newAnchor = len(out)
		}
		out = append(out, termtext.WrapAll([]string{l}, w, "  ")...)
	}
	return out, newAnchor
}
