package workshop

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/text"
)

// The roster is one table, drawn twice: on the workshop screen (tui) and
// printed when the workshop ends (plain mode). Both take its columns from
// Columns, so the two cannot drift apart; each front end only fits the
// cells to terminal cells (it knows the terminal's widths, this package
// does not) and escapes them.

// Column is one column of the roster.
type Column struct {
	Head text.Text
	// Width is the column's width in terminal cells; 0 for the last
	// column, which takes the rest of the line.
	Width int
	// Right aligns the cell to the right (numbers, ages).
	Right bool
	// Cell is the row's text in this column at now, unescaped.
	Cell func(r Row, now time.Time, lang text.Lang) string
}

// PrintedWidth is the widest the last column gets where no screen bounds
// it (the roster printed at the end): an attendee's long message or
// error is cut with "…" there, not printed whole (T3b).
const PrintedWidth = 56

// messagePreview is how many characters of an attendee's message the
// message · observed column quotes before what the server observed.
const messagePreview = 40

// Columns are the roster's columns, in order.
func Columns() []Column {
	return []Column{
		{Head: text.Text{EN: "#", ZH: "#"}, Width: 4, Right: true, Cell: func(r Row, _ time.Time, _ text.Lang) string { return strconv.Itoa(r.N) }},
		{Head: text.Text{EN: "name/address", ZH: "名字/地址"}, Width: 21, Cell: func(r Row, _ time.Time, _ text.Lang) string { return r.Who() }},
		{Head: text.Text{EN: "nic", ZH: "nic"}, Width: 4, Cell: func(r Row, _ time.Time, _ text.Lang) string { return r.Backend }},
		{Head: text.Text{EN: "QPN", ZH: "QPN"}, Width: 8, Cell: func(r Row, _ time.Time, _ text.Lang) string { return qpnCell(r.QPN) }},
		{Head: text.Text{EN: "QP", ZH: "QP"}, Width: 5, Cell: func(r Row, _ time.Time, _ text.Lang) string { return strings.TrimPrefix(r.QPState, "IBV_QPS_") }},
		{Head: text.Text{EN: "state", ZH: "状态"}, Width: 10, Cell: func(r Row, _ time.Time, lang text.Lang) string { return r.PhaseCell(lang) }},
		{Head: text.Text{EN: "step", ZH: "步骤"}, Width: 10, Cell: func(r Row, _ time.Time, _ text.Lang) string { return StepBar(r.Ran, r.Steps) }},
		{Head: text.Text{EN: "last", ZH: "最近"}, Width: 6, Right: true, Cell: func(r Row, now time.Time, _ text.Lang) string { return Ago(now.Sub(r.Last)) }},
		{Head: text.Text{EN: "message · observed", ZH: "消息 · 观察到的"}, Cell: func(r Row, _ time.Time, lang text.Lang) string { return r.What(lang) }},
	}
}

// stepBarCells is how many cells StepBar's bar takes.
const stepBarCells = 4

// StepBar is ran of steps as a short bar and a count, "██░░ 9/18"
// ("-" before the attendee's first step is known).
func StepBar(ran, steps int) string {
	if steps <= 0 {
		return "-"
	}
	full := min(ran*stepBarCells/steps, stepBarCells)
	return strings.Repeat("█", full) + strings.Repeat("░", stepBarCells-full) + " " + strconv.Itoa(ran) + "/" + strconv.Itoa(steps)
}

// Who is the attendee as the roster names them: the name their hello
// carried (--name, already escaped), else their address.
func (r Row) Who() string {
	if r.Name != "" {
		return r.Name
	}
	return r.Addr.String()
}

// PhaseCell is the state column: the phase, or "stuck" for an attendee
// still in the room with nothing happening for longer than StuckAfter.
func (r Row) PhaseCell(lang text.Lang) string {
	if r.Stuck {
		return text.Text{EN: "stuck", ZH: "卡住"}.In(lang)
	}
	if r.Phase == PhaseFinished && r.Expected.EN != "" {
		return text.Text{EN: "expected ✓", ZH: "预期错误 ✓"}.In(lang)
	}
	return r.Phase.In(lang)
}

func qpnCell(qpn uint32) string {
	if qpn == 0 {
		return "-"
	}
	return fmt.Sprintf("0x%x", qpn)
}

// What is the row's message · observed cell in lang: the message first (it is
// what the room is about), then what the attendee's atomics found, then
// what the server observed, each said once.
func (r Row) What(lang text.Lang) string {
	what := r.Observed.In(lang)
	if r.Atomics != "" && !strings.Contains(r.Observed.EN, r.Atomics) {
		what = r.Atomics + " · " + what
	}
	if r.Landed && !strings.Contains(r.Observed.EN, "landed") {
		what = `"` + preview(r.Message.String(), messagePreview) + `" · ` + what
	}
	return what
}

// preview is s cut to n characters, the last one "…" when it was cut.
func preview(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1]) + "…"
}

// Ago is a short age: 5s, 3m, 2h.
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(max(d, 0)/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh", int(d/time.Hour))
}

// In is the phase's name in lang (English when lang is both: a cell has
// room for one).
func (p Phase) In(lang text.Lang) string {
	if lang != text.ZH {
		return p.String()
	}
	switch p {
	case PhaseConnecting:
		return "连接中"
	case PhaseConnected:
		return "已连接"
	case PhaseLanded:
		return "数据已到"
	case PhaseFinished:
		return "已完成"
	case PhaseFailed:
		return "失败"
	case PhaseDropped:
		return "已移除"
	case PhaseTurnedAway:
		return "被拒绝"
	}
	return "?"
}

// Line lays cells (one per column of cols) out as one line, each fitted
// to its column's width by fit, which cuts and pads in terminal cells;
// the last column is cut at last cells (0: not at all, the caller fits
// the whole line). sep goes between columns.
func Line(cols []Column, cells []string, sep string, last int, fit func(s string, w int, right bool) string) string {
	var b strings.Builder
	for i, c := range cols {
		if i > 0 {
			b.WriteString(sep)
		}
		switch {
		case c.Width > 0:
			b.WriteString(fit(cells[i], c.Width, c.Right))
		case last > 0:
			b.WriteString(strings.TrimRight(fit(cells[i], last, false), " "))
		default:
			b.WriteString(cells[i])
		}
	}
	return b.String()
}

// Heads are the columns' headings in lang.
func Heads(cols []Column, lang text.Lang) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Head.EN
		if lang == text.ZH {
			out[i] = c.Head.ZH
		}
	}
	return out
}

// Cells are row's cells under cols at now.
func Cells(cols []Column, r Row, now time.Time, lang text.Lang) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Cell(r, now, lang)
	}
	return out
}
