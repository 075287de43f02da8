package pane

import (
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

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

// Content is what pane k of side shows at inner size w×h: its title,
// its lines, and the first line to show while the learner has not
// scrolled it (the current step in the middle, the newest message at the
// bottom, the live-state section the step changed at the top). No line
// is cut: what is wider than the pane wraps (termtext.WrapAll); only step
// titles, which are text, end in "…" when cut.
func (in *Input) Content(k Kind, side, w, h int) Content {
	if k < 0 || int(k) >= len(panes) {
		return Content{}
	}
	return panes[k](in, side, w, h)
}

// panes is the pane table: one row per Kind, the function that fills it.
var panes = [...]func(in *Input, side, w, h int) Content{
	Steps:    (*Input).stepsContent,
	Explain:  (*Input).explainContent,
	Call:     (*Input).callContent,
	State:    (*Input).stateContent,
	Timeline: (*Input).timelineContent,
	Wire:     (*Input).wireContent,
}

func (in *Input) stepsContent(side, w, h int) Content {
	lines, cur := in.stepsLines(side, w)
	return Content{in.stepsTitle(side), lines, cur - h/2}
}

func (in *Input) callContent(_, w, _ int) Content {
	return Content{in.callTitle(), termtext.WrapAll(in.callLines(w), w, "  "), 0}
}

func (in *Input) explainContent(_, w, _ int) Content {
	return Content{in.explainTitle(), in.explainLines(w), 0}
}

func (in *Input) stateContent(side, w, _ int) Content {
	lines, anchor := in.StateLines(side, w)
	if in.Demo && !in.Narrow {
		// The demo's side columns have no wire pane of their own.
		lines = append(append(lines, ""), in.WireLines(side, w)...)
	}
	lines, anchor = wrapAnchored(lines, anchor, w)
	return Content{in.stateTitle(side), lines, anchor}
}

func (in *Input) timelineContent(_, w, h int) Content {
	lines := termtext.WrapAll(in.TimelineLines(w), w, "")
	return Content{text.Text{EN: "Timeline", ZH: "时序"}.Label(in.Lang), lines, len(lines) - h/2}
}

func (in *Input) wireContent(side, w, h int) Content {
	lines := termtext.WrapAll(in.WireLines(side, w), w, "  ")
	return Content{in.WireTitle(side), lines, len(lines) - h/2}
}

// wrapAnchored is termtext.WrapAll keeping anchor on the same line.
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
