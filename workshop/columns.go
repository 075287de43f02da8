package workshop

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// The roster is one table, drawn twice: on the workshop screen (tui) and
// printed when the workshop ends (plain mode). Both take its columns from
// Columns, so the two cannot drift apart; each front end only fits the
// cells to terminal cells (it knows the terminal's widths, this package
// does not) and escapes them.

// Column is one column of the roster.
type Column struct {
	Head steps.Text
	// Width is the column's width in terminal cells; 0 for the last
	// column, which takes the rest of the line.
	Width int
	// Right aligns the cell to the right (numbers, ages).
	Right bool
	// Cell is the row's text in this column at now, unescaped.
	Cell func(r Row, now time.Time, lang steps.Lang) string
}

// PrintedWidth is the widest the last column gets where no screen bounds
// it (the roster printed at the end): an attendee's long message or
// error is cut with "…" there, not printed whole (T3b).
const PrintedWidth = 64

// messagePreview is how many characters of an attendee's message the
// message · observed column quotes before what the server observed.
const messagePreview = 40

// Columns are the roster's columns, in order.
func Columns() []Column {
	return []Column{
		{Head: steps.Text{EN: "#", ZH: "#"}, Width: 4, Right: true, Cell: func(r Row, _ time.Time, _ steps.Lang) string { return strconv.Itoa(r.N) }},
		{Head: steps.Text{EN: "address", ZH: "地址"}, Width: 21, Cell: func(r Row, _ time.Time, _ steps.Lang) string { return r.Addr.String() }},
		{Head: steps.Text{EN: "nic", ZH: "nic"}, Width: 4, Cell: func(r Row, _ time.Time, _ steps.Lang) string { return r.Backend }},
		{Head: steps.Text{EN: "QPN", ZH: "QPN"}, Width: 8, Cell: func(r Row, _ time.Time, _ steps.Lang) string { return qpnCell(r.QPN) }},
		{Head: steps.Text{EN: "QP", ZH: "QP"}, Width: 5, Cell: func(r Row, _ time.Time, _ steps.Lang) string { return strings.TrimPrefix(r.QPState, "IBV_QPS_") }},
		{Head: steps.Text{EN: "state", ZH: "状态"}, Width: 10, Cell: func(r Row, _ time.Time, lang steps.Lang) string { return r.Phase.In(lang) }},
		{Head: steps.Text{EN: "last", ZH: "最近"}, Width: 6, Right: true, Cell: func(r Row, now time.Time, _ steps.Lang) string { return Ago(now.Sub(r.Last)) }},
		{Head: steps.Text{EN: "message · observed", ZH: "消息 · 观察到的"}, Cell: func(r Row, _ time.Time, _ steps.Lang) string { return r.What() }},
	}
}

func qpnCell(qpn uint32) string {
	if qpn == 0 {
		return "-"
	}
	return fmt.Sprintf("0x%x", qpn)
}

// What is the row's message · observed cell: the message first (it is
// what the room is about), then what the attendee's atomics found, then
// what the server observed, each said once.
func (r Row) What() string {
	what := r.Observed
	if r.Atomics != "" && !strings.Contains(r.Observed, r.Atomics) {
		what = r.Atomics + " · " + what
	}
	if r.Landed && !strings.Contains(r.Observed, "landed") {
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
func (p Phase) In(lang steps.Lang) string {
	if lang != steps.LangZH {
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
func Heads(cols []Column, lang steps.Lang) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Head.EN
		if lang == steps.LangZH {
			out[i] = c.Head.ZH
		}
	}
	return out
}

// Cells are row's cells under cols at now.
func Cells(cols []Column, r Row, now time.Time, lang steps.Lang) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Cell(r, now, lang)
	}
	return out
}
