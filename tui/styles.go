package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// sty is a style reduced to the escape sequences around its text, so that
// rendering a cell costs a string concatenation (View runs several times a
// second over a few thousand cells). With NO_COLOR both are empty.
type sty struct{ pre, suf string }

// R renders s in the style.
func (s sty) R(str string) string {
	if s.pre == "" || str == "" {
		return str
	}
	return s.pre + str + s.suf
}

func fromLipgloss(st lipgloss.Style) sty {
	const mark = "\x01"
	r := st.Render(mark)
	i := strings.Index(r, mark)
	if i < 0 {
		return sty{}
	}
	return sty{pre: r[:i], suf: r[i+len(mark):]}
}

// Styles is every style the UI uses; built once per model.
type Styles struct {
	NoColor bool

	Title      sty // pane titles
	Border     sty
	Focus      sty // focused pane border and title
	Header     sty // the top line
	Sim        sty // the "SIMULATED NIC" label
	Real       sty // a real RDMA backend
	Dim        sty
	Bold       sty
	Key        sty // field names
	Heading    sty // headings of the explanation pages
	OK         sty
	Err        sty
	ErrBanner  sty
	OKBanner   sty
	Warn       sty
	Expected   sty // a lesson's expected error (the point of the lesson)
	Running    sty
	Current    sty // the current step / QP state
	Changed    sty // bytes written since the learner's last step
	TabActive  sty
	TabIdle    sty
	Call       sty // C code
	HelpStyles help.Styles
}

// NewStyles builds the styles; noColor drops every escape sequence.
func NewStyles(noColor bool) Styles {
	if noColor {
		return Styles{NoColor: true, HelpStyles: help.Styles{}}
	}
	c := lipgloss.Color
	ns := lipgloss.NewStyle
	return Styles{
		Title:     fromLipgloss(ns().Bold(true)),
		Border:    fromLipgloss(ns().Foreground(c("8"))),
		Focus:     fromLipgloss(ns().Foreground(c("6")).Bold(true)),
		Header:    fromLipgloss(ns().Bold(true)),
		Sim:       fromLipgloss(ns().Foreground(c("0")).Background(c("3")).Bold(true)),
		Real:      fromLipgloss(ns().Foreground(c("2")).Bold(true)),
		Dim:       fromLipgloss(ns().Foreground(c("8"))),
		Bold:      fromLipgloss(ns().Bold(true)),
		Key:       fromLipgloss(ns().Foreground(c("4"))),
		Heading:   fromLipgloss(ns().Foreground(c("4")).Bold(true)),
		OK:        fromLipgloss(ns().Foreground(c("2"))),
		Err:       fromLipgloss(ns().Foreground(c("1")).Bold(true)),
		ErrBanner: fromLipgloss(ns().Foreground(c("15")).Background(c("1")).Bold(true)),
		OKBanner:  fromLipgloss(ns().Foreground(c("0")).Background(c("2")).Bold(true)),
		Warn:      fromLipgloss(ns().Foreground(c("3"))),
		Expected:  fromLipgloss(ns().Foreground(c("5")).Bold(true)),
		Running:   fromLipgloss(ns().Foreground(c("3")).Bold(true)),
		Current:   fromLipgloss(ns().Reverse(true).Bold(true)),
		Changed:   fromLipgloss(ns().Foreground(c("0")).Background(c("3"))),
		TabActive: fromLipgloss(ns().Reverse(true).Bold(true)),
		TabIdle:   fromLipgloss(ns().Foreground(c("8"))),
		Call:      fromLipgloss(ns().Foreground(c("6"))),
		HelpStyles: help.Styles{
			ShortKey:       ns().Bold(true),
			ShortDesc:      ns().Foreground(c("8")),
			ShortSeparator: ns().Foreground(c("8")),
			Ellipsis:       ns().Foreground(c("8")),
			FullKey:        ns().Bold(true),
			FullDesc:       ns().Foreground(c("8")),
			FullSeparator:  ns().Foreground(c("8")),
		},
	}
}
