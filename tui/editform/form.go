// Package editform is the TUI's `e` form: the editable arguments of the
// step about to run, each drawn by its kind (flags as toggles, an enum as
// a list of C names, a number with its range, text), in the UI's language.
//
// The form knows nothing of steps or sessions: the caller turns the
// engine's catalogue into Fields and turns the form's Changes back into
// edits. Enter applies (after each changed value passed its Check), Esc
// leaves everything as it was. Every key goes to the form while it is
// open; it draws into a given width and height so that it fits 80×24.
package editform

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/text"
)

// Kind is how a field's value is entered.
type Kind int

const (
	// Flags is a set of C flags, each a toggle; the value is the set
	// joined with "|", or "0" for none.
	Flags Kind = iota
	// Choice is one of Options, by its C name.
	Choice
	// Input is typed: a number, an offset, a key expression, the message.
	Input
)

// Field is one argument of the call as the form shows it.
type Field struct {
	// Name is the edit's field name (access, rkey); CName the argument as
	// C writes it (wr.wr.rdma.rkey).
	Name, CName string
	Kind        Kind
	// Options are the flags (Flags) or values (Choice), as C names.
	Options []string
	// Range is the valid values in words ("1..4096", "rkey, lkey, +N").
	Range string
	// Meaning says what the argument means, in general terms.
	Meaning text.Text
	// Current is the value the step would use now; Default the tour's own.
	Current, Default string
	// MaxLen bounds an Input's length in bytes (0: no bound of the form's).
	MaxLen int
	// Check parses a value, nil meaning any value goes; its error is
	// shown under the form and the form stays open.
	Check func(string) error
}

// Change is a field whose value the learner changed. Restore says the
// new value is the tour's own: the caller clears its edit.
type Change struct {
	Name, Value string
	Restore     bool
}

// Result is what a key did to the form.
type Result int

const (
	// Open: the form is still on screen.
	Open Result = iota
	// Applied: Enter, and every change passed its check; see Changes.
	Applied
	// Cancelled: Esc, nothing changes.
	Cancelled
)

// row is one line the cursor can be on: a field, and for Flags the flag.
type row struct{ field, option int }

// Model is the open form.
type Model struct {
	title  text.Text
	fields []Field
	lang   text.Lang
	rows   []row
	cur    int
	// flags[i][j] is flag j of field i set; choice[i] the chosen option;
	// inputs[i] the typed value (each only for its kind).
	flags  [][]bool
	choice []int
	inputs []textinput.Model
	// errText is the last Check's complaint, shown until the next key.
	errText string
}

// New opens a form titled title over fields, their values as Current.
func New(title text.Text, fields []Field, lang text.Lang) *Model {
	m := &Model{title: title, fields: fields, lang: lang,
		flags: make([][]bool, len(fields)), choice: make([]int, len(fields)), inputs: make([]textinput.Model, len(fields))}
	for i, f := range fields {
		switch f.Kind {
		case Flags:
			m.flags[i] = setFlags(f.Options, f.Current, f.Default)
			for j := range f.Options {
				m.rows = append(m.rows, row{i, j})
			}
			continue
		case Choice:
			m.choice[i] = max(0, indexOf(f.Options, f.Current))
		case Input:
			m.inputs[i] = newInput(f)
		}
		m.rows = append(m.rows, row{i, 0})
	}
	m.focus()
	return m
}

func newInput(f Field) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = f.MaxLen
	in.SetValue(f.Current)
	st := in.Styles()
	st.Cursor.Blink = false // a still cursor: the frame is the same every time
	in.SetStyles(st)
	return in
}

// setFlags reads "A | B" (or "0") as toggles over options; a value
// written as changes ("+A | -B", as --edit allows) applies them to base.
func setFlags(options []string, value, base string) []bool {
	on := make([]bool, len(options))
	relative := strings.ContainsAny(value, "+-")
	if relative && !strings.ContainsAny(base, "+-") {
		on = setFlags(options, base, "")
	}
	for _, part := range strings.Split(value, "|") {
		part = strings.TrimSpace(part)
		set := !strings.HasPrefix(part, "-")
		if j := indexOf(options, strings.TrimSpace(strings.TrimLeft(part, "+-"))); j >= 0 {
			on[j] = set
		}
	}
	return on
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Title is the form's title in the form's language.
func (m *Model) Title() string { return m.title.In(m.lang) }

// Update handles one key.
func (m *Model) Update(msg tea.KeyPressMsg) (Result, tea.Cmd) {
	m.errText = ""
	switch msg.String() {
	case "esc":
		return Cancelled, nil
	case "enter":
		return m.apply(), nil
	case "up", "shift+tab":
		m.move(-1)
		return Open, nil
	case "down", "tab":
		m.move(1)
		return Open, nil
	}
	if len(m.rows) == 0 {
		return Open, nil
	}
	r := m.rows[m.cur]
	f := m.fields[r.field]
	switch {
	case f.Kind == Flags && (msg.String() == "space" || msg.String() == "x"):
		m.flags[r.field][r.option] = !m.flags[r.field][r.option]
	case f.Kind == Choice && (msg.String() == "right" || msg.String() == "space"):
		m.choice[r.field] = (m.choice[r.field] + 1) % len(f.Options)
	case f.Kind == Choice && msg.String() == "left":
		m.choice[r.field] = (m.choice[r.field] + len(f.Options) - 1) % len(f.Options)
	case f.Kind == Input:
		var cmd tea.Cmd
		m.inputs[r.field], cmd = m.inputs[r.field].Update(msg)
		return Open, cmd
	}
	return Open, nil
}

// move puts the cursor d rows on, wrapping round, and gives the typed
// field under it the keys.
func (m *Model) move(d int) {
	if len(m.rows) == 0 {
		return
	}
	m.cur = (m.cur + d + len(m.rows)) % len(m.rows)
	m.focus()
}

func (m *Model) focus() {
	for i := range m.inputs {
		if m.fields[i].Kind == Input {
			m.inputs[i].Blur()
		}
	}
	if len(m.rows) > 0 {
		if i := m.rows[m.cur].field; m.fields[i].Kind == Input {
			m.inputs[i].Focus()
		}
	}
}

// Value is field i's value as the form holds it now.
func (m *Model) Value(i int) string {
	f := m.fields[i]
	switch f.Kind {
	case Flags:
		var on []string
		for j, set := range m.flags[i] {
			if set {
				on = append(on, f.Options[j])
			}
		}
		if len(on) == 0 {
			return "0"
		}
		return strings.Join(on, " | ")
	case Choice:
		if len(f.Options) == 0 {
			return f.Current
		}
		return f.Options[m.choice[i]]
	}
	return strings.TrimSpace(m.inputs[i].Value())
}

// changed says field i's value differs from the one the form opened with.
func (m *Model) changed(i int) bool {
	f := m.fields[i]
	if f.Kind == Flags {
		return !sameFlags(setFlags(f.Options, f.Current, f.Default), m.flags[i])
	}
	return m.Value(i) != f.Current
}

func sameFlags(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// apply checks every changed field; the first that fails keeps the form
// open with the cursor on it.
func (m *Model) apply() Result {
	for i, f := range m.fields {
		if !m.changed(i) || f.Check == nil {
			continue
		}
		if err := f.Check(m.Value(i)); err != nil {
			m.errText = f.Name + ": " + err.Error()
			m.cursorTo(i)
			return Open
		}
	}
	return Applied
}

func (m *Model) cursorTo(field int) {
	for j, r := range m.rows {
		if r.field == field {
			m.cur = j
			m.focus()
			return
		}
	}
}

// Changes are the fields changed since the form opened, in form order.
func (m *Model) Changes() []Change {
	var out []Change
	for i, f := range m.fields {
		if !m.changed(i) {
			continue
		}
		v := m.Value(i)
		restore := v == f.Default || f.Kind == Flags && sameFlags(setFlags(f.Options, f.Default, ""), m.flags[i])
		out = append(out, Change{Name: f.Name, Value: v, Restore: restore})
	}
	return out
}
