package pane

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/rdmatour/rdmatour/termtext"
)

// Styles is every style the UI uses; built once per model.
type Styles struct {
	NoColor bool

	Title      termtext.Style // pane titles
	Border     termtext.Style
	Focus      termtext.Style // focused pane border and title
	Header     termtext.Style // the top line
	Sim        termtext.Style // the "SIMULATED NIC" label
	Real       termtext.Style // a real RDMA backend
	Dim        termtext.Style
	Bold       termtext.Style
	Key        termtext.Style // field names
	Heading    termtext.Style // headings of the explanation pages
	OK         termtext.Style
	Err        termtext.Style
	ErrBanner  termtext.Style
	OKBanner   termtext.Style
	Warn       termtext.Style
	Expected   termtext.Style // a lesson's expected error (the point of the lesson)
	Running    termtext.Style
	Current    termtext.Style // the current step / QP state
	Changed    termtext.Style // bytes written since the learner's last step
	TabActive  termtext.Style
	TabIdle    termtext.Style
	Call       termtext.Style // C code
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
		Title:     termtext.StyleOf(ns().Bold(true)),
		Border:    termtext.StyleOf(ns().Foreground(c("8"))),
		Focus:     termtext.StyleOf(ns().Foreground(c("6")).Bold(true)),
		Header:    termtext.StyleOf(ns().Bold(true)),
		Sim:       termtext.StyleOf(ns().Foreground(c("0")).Background(c("3")).Bold(true)),
		Real:      termtext.StyleOf(ns().Foreground(c("2")).Bold(true)),
		Dim:       termtext.StyleOf(ns().Foreground(c("8"))),
		Bold:      termtext.StyleOf(ns().Bold(true)),
		Key:       termtext.StyleOf(ns().Foreground(c("4"))),
		Heading:   termtext.StyleOf(ns().Foreground(c("4")).Bold(true)),
		OK:        termtext.StyleOf(ns().Foreground(c("2"))),
		Err:       termtext.StyleOf(ns().Foreground(c("1")).Bold(true)),
		ErrBanner: termtext.StyleOf(ns().Foreground(c("15")).Background(c("1")).Bold(true)),
		OKBanner:  termtext.StyleOf(ns().Foreground(c("0")).Background(c("2")).Bold(true)),
		Warn:      termtext.StyleOf(ns().Foreground(c("3"))),
		Expected:  termtext.StyleOf(ns().Foreground(c("5")).Bold(true)),
		Running:   termtext.StyleOf(ns().Foreground(c("3")).Bold(true)),
		Current:   termtext.StyleOf(ns().Reverse(true).Bold(true)),
		Changed:   termtext.StyleOf(ns().Foreground(c("0")).Background(c("3"))),
		TabActive: termtext.StyleOf(ns().Reverse(true).Bold(true)),
		TabIdle:   termtext.StyleOf(ns().Foreground(c("8"))),
		Call:      termtext.StyleOf(ns().Foreground(c("6"))),
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

// Page is the subset of the styles Markdown pages are drawn in.
func (s Styles) Page() termtext.PageStyle {
	return termtext.PageStyle{NoColor: s.NoColor, Header: s.Header, Heading: s.Heading,
		Call: s.Call, Dim: s.Dim, Bold: s.Bold, Key: s.Key}
}
