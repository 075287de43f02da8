package editform

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// View is the form's lines for a frame's inside: w cells wide, at most h
// lines. The fields scroll so that the cursor's row stays in sight; the
// focused field's meaning and the last error stay at the bottom (the keys
// are the screen's help line: Keys).
func (m *Model) View(st pane.Styles, w, h int) []string {
	foot := m.footer(st, w)
	body, at := m.fieldLines(st, w)
	room := max(1, h-len(foot))
	if len(body) > room && room >= 3 {
		// Keep the cursor's row in sight; a line at each cut end says
		// how much is beyond it (nothing is cut silently).
		inner := room - 2
		top := min(max(0, at-inner/2), len(body)-inner)
		above, below := top, len(body)-top-inner
		body = append(append([]string{m.moreLine(st, "↑", above, w)}, body[top:top+inner]...), m.moreLine(st, "↓", below, w))
	} else if len(body) > room {
		top := min(max(0, at-room/2), len(body)-room)
		body = body[top : top+room]
	}
	out := append(body, make([]string, max(0, room-len(body)))...)
	return append(out, foot...)
}

// moreLine says n lines are beyond this end of the list (blank for none).
func (m *Model) moreLine(st pane.Styles, arrow string, n, w int) string {
	if n == 0 {
		return ""
	}
	return st.Dim.R(termtext.Truncate(fmt.Sprintf("%s %d %s", arrow, n, text.Text{EN: "more lines", ZH: "行未显示"}.In(m.lang)), w))
}

// fieldLines draws every field; at is the line of the cursor's row.
func (m *Model) fieldLines(st pane.Styles, w int) (lines []string, at int) {
	for i, f := range m.fields {
		head := st.Key.R(f.Name)
		if f.CName != "" && f.CName != f.Name {
			head += " " + st.Dim.R("("+f.CName+")")
		}
		if f.Range != "" && f.Kind == Input {
			head += st.Dim.R(" · " + f.Range)
		}
		if m.changed(i) || f.Current != f.Default {
			head += "  " + st.Warn.R(text.Text{EN: "was: ", ZH: "原值："}.In(m.lang)+f.Default)
		}
		lines = append(lines, termtext.Truncate(head, w))
		for j, r := range m.rows {
			if r.field != i {
				continue
			}
			mark := "  "
			if j == m.cur {
				mark, at = st.Bold.R("> "), len(lines)
			}
			lines = append(lines, termtext.Truncate(mark+m.rowText(st, r, j == m.cur, w-2), w))
		}
	}
	return lines, at
}

// rowText is one row's value: a toggle, the chosen value, or the input.
func (m *Model) rowText(st pane.Styles, r row, cur bool, w int) string {
	f := m.fields[r.field]
	switch f.Kind {
	case Flags:
		box := "[ ] "
		if m.flags[r.field][r.option] {
			box = "[x] "
		}
		return box + f.Options[r.option]
	case Choice:
		v := m.Value(r.field)
		if cur {
			return "◀ " + st.Current.R(v) + " ▶"
		}
		return v
	}
	return "[" + m.inputText(st, r.field, cur, max(4, w-3)) + "]"
}

// inputText draws a typed value itself, the cursor as one reversed cell:
// textinput's own View brings colours and a blinking cursor, and a
// golden frame needs the same cells every time. A value wider than w
// shows its end, where the cursor usually is.
func (m *Model) inputText(st pane.Styles, field int, cur bool, w int) string {
	in := m.inputs[field]
	v := []rune(in.Value())
	if !cur {
		return termtext.Fit(termtext.Safe(string(v)), w)
	}
	pos := min(in.Position(), len(v))
	under := " "
	if pos < len(v) {
		under = string(v[pos])
	}
	before := termtext.Safe(string(v[:pos]))
	for termtext.Width(before) > w-1 {
		_, size := utf8.DecodeRuneInString(before)
		before = before[size:]
	}
	after := ""
	if pos < len(v) {
		after = string(v[pos+1:])
	}
	return termtext.Fit(before+st.Current.R(termtext.Safe(under))+termtext.Safe(after), w)
}

// footer is the focused field's meaning and the error if any.
func (m *Model) footer(st pane.Styles, w int) []string {
	out := []string{st.Dim.R(strings.Repeat("─", max(0, w)))}
	if len(m.rows) > 0 {
		f := m.fields[m.rows[m.cur].field]
		meaning := termtext.Wrap(f.Meaning.In(m.lang), w)
		if len(meaning) > 3 {
			meaning = append(meaning[:2], termtext.Fit(meaning[2]+" …", w))
		}
		out = append(out, meaning...)
		if f.Kind == Choice && f.Range != "" {
			out = append(out, st.Dim.R(termtext.Truncate(text.Text{EN: "values: ", ZH: "可选值："}.In(m.lang)+f.Range, w)))
		}
	}
	if m.errText != "" {
		out = append(out, termtext.WrapAll([]string{st.Err.R(m.errText)}, w, "  ")...)
	}
	return out
}

// Keys is the form's keys in its language: the screen's help line while
// the form is open (the tour's keys do not work then).
func (m *Model) Keys() string {
	return text.Text{EN: "↑↓ field · space toggle · ←→ choose · enter apply · esc leave as it was",
		ZH: "↑↓ 换字段 · 空格 勾选 · ←→ 选值 · 回车 应用 · Esc 保持原样"}.In(m.lang)
}
