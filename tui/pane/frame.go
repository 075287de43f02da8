package pane

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/viewport"

	"github.com/rdmatour/rdmatour/termtext"
)

// Scroll is one framed pane of the screen: a title, content lines,
// and a scroll offset that a bubbles viewport owns (it clamps the offset
// to the content and does the paging arithmetic). Update sizes it and
// gives it its content; View only draws. The frame and the visible lines
// are drawn here with this package's width rules rather than by
// viewport.View, which pads with lipgloss and so measures East Asian
// ambiguous characters as RUNEWIDTH_EASTASIAN says (see width.go).
type Scroll struct {
	title string
	lines []string
	vp    viewport.Model
	w, h  int
	// scrolled says the learner moved this pane; until then it keeps its
	// anchor in view (the current step, the newest packet, the section of
	// the live state the step changed).
	scrolled bool
}

// NewScroll returns an empty pane.
func NewScroll() *Scroll { return &Scroll{vp: viewport.New()} }

// SetSize sizes the pane, frame included.
func (p *Scroll) SetSize(w, h int) {
	p.w, p.h = w, h
	p.vp.SetWidth(max(0, w-4))
	p.vp.SetHeight(max(0, h-2))
}

// SetContent replaces the title and the lines; top is the first line to
// show while the learner has not scrolled the pane.
func (p *Scroll) SetContent(title string, lines []string, top int) {
	p.title = title
	p.lines = lines
	p.vp.SetContentLines(append([]string(nil), lines...))
	if !p.scrolled {
		p.vp.SetYOffset(top)
	}
}

// ScrollBy moves the pane by d lines (negative: up).
func (p *Scroll) ScrollBy(d int) {
	p.scrolled = true
	switch {
	case d <= -len(p.lines):
		p.vp.GotoTop()
	case d >= len(p.lines):
		p.vp.GotoBottom()
	case d < 0:
		p.vp.ScrollUp(-d)
	default:
		p.vp.ScrollDown(d)
	}
}

// Follow gives the pane back to its anchor (a new step, a new language).
func (p *Scroll) Follow() { p.scrolled = false }

// View draws the pane at w×h cells (the layout's size for it, which is
// the pane's own after Update).
func (p Scroll) View(st Styles, w, h int, focused bool) []string {
	return Frame(st, p.title, p.lines, w, h, p.vp.YOffset(), focused)
}

// Frame draws lines in a titled rounded box of exactly w×h cells,
// starting at line off, with "a-b/n" at the bottom when not all fit.
func Frame(st Styles, title string, lines []string, w, h, off int, focused bool) []string {
	if h <= 0 || w <= 0 {
		return nil
	}
	if h < 3 || w < 6 {
		return termtext.Block(nil, w, h)
	}
	bs := st.Border
	if focused {
		bs = st.Focus
	}
	iw, ih := w-4, h-2
	maxOff := max(0, len(lines)-ih)
	off = min(max(off, 0), maxOff)
	title = termtext.Truncate(title, w-6)
	out := make([]string, 0, h)
	out = append(out, bs.R("╭─ ")+st.Title.R(title)+bs.R(" "+strings.Repeat("─", max(0, w-5-termtext.Width(title)))+"╮"))
	for i := range ih {
		s := ""
		if j := off + i; j < len(lines) {
			s = lines[j]
		}
		out = append(out, bs.R("│")+" "+termtext.Fit(s, iw)+" "+bs.R("│"))
	}
	more := ""
	if maxOff > 0 {
		more = fmt.Sprintf(" %d-%d/%d ", off+1, min(off+ih, len(lines)), len(lines))
		if focused {
			more = " ↑↓" + more
		}
	}
	fill := max(0, w-2-termtext.Width(more)-1)
	return append(out, bs.R("╰"+strings.Repeat("─", fill))+st.Dim.R(more)+bs.R("─╯"))
}
