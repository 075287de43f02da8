package termtext

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// Style is a style reduced to the escape sequences around its text, so
// that rendering a cell costs a string concatenation (a UI draws several
// times a second over a few thousand cells). The zero Style is no style:
// with NO_COLOR every Style is zero.
type Style struct{ pre, suf string }

// R renders s in the style.
func (s Style) R(str string) string {
	if s.pre == "" || str == "" {
		return str
	}
	return s.pre + str + s.suf
}

// StyleOf reduces a lipgloss style to its escape sequences.
func StyleOf(st lipgloss.Style) Style {
	const mark = "\x01"
	r := st.Render(mark)
	i := strings.Index(r, mark)
	if i < 0 {
		return Style{}
	}
	return Style{pre: r[:i], suf: r[i+len(mark):]}
}

// PageStyle is what a Markdown page is drawn in: the front end's styles
// for headings, code and the rest (the TUI passes its own; plain output
// passes the zero PageStyle with NoColor set).
type PageStyle struct {
	// NoColor underlines headings and keeps inline code's backticks,
	// since colour cannot mark them.
	NoColor bool
	Header  Style // a level-1 heading
	Heading Style // the other headings
	Call    Style // code: inline and blocks
	Dim     Style // list marks, quote bars, rules, raw HTML
	Bold    Style // emphasis
	Key     Style // autolinks
}
