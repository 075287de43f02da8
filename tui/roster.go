package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/workshop"
)

// The roster: the workshop server's table of attendees, one row each —
// number, address, backend, QPN, QP state, what the server has observed,
// their message (escaped: it is the attendee's bytes) and the time since
// their last event — under a header with the counts. It owns its
// selection and its scroll offset; the selected attendee's live state,
// timeline and wire are drawn below it by the usual panes.

// roster is the roster pane's state.
type roster struct {
	rows   []workshop.Row
	counts workshop.Counts
	at     time.Time // when rows were read: "last event" counts from here
	sel    int       // selected row
	top    int       // first row shown
	height int       // rows that fit (set by the layout)
}

// setRows replaces the rows, keeping the selection on the same attendee.
func (r *roster) setRows(rows []workshop.Row, counts workshop.Counts, at time.Time) {
	selN := 0
	if r.sel < len(r.rows) {
		selN = r.rows[r.sel].N
	}
	r.rows, r.counts, r.at = rows, counts, at
	for i, row := range rows {
		if row.N == selN {
			r.sel = i
		}
	}
	r.clamp()
}

// move moves the selection by d rows and scrolls to keep it in view.
func (r *roster) move(d int) {
	r.sel += d
	r.clamp()
}

func (r *roster) clamp() {
	r.sel = min(max(r.sel, 0), max(len(r.rows)-1, 0))
	if r.height <= 0 {
		return
	}
	if r.sel < r.top {
		r.top = r.sel
	}
	if r.sel >= r.top+r.height {
		r.top = r.sel - r.height + 1
	}
	r.top = min(max(r.top, 0), max(len(r.rows)-r.height, 0))
}

// selected is the selected attendee's number (0 when the room is empty).
func (r *roster) selected() int {
	if r.sel < len(r.rows) {
		return r.rows[r.sel].N
	}
	return 0
}

// The table's fixed columns, in cells.
const (
	colN, colAddr, colBackend, colQPN, colState, colPhase, colLast = 4, 21, 4, 8, 5, 10, 6
)

// header is the counts line.
func (r *roster) header(st pane.Styles, lang text.Lang) string {
	c := r.counts
	return fmt.Sprintf("%s %s  %s %s  %s %s  %s %s",
		st.OK.R(fmt.Sprint(c.Connected)), text.Text{EN: "connected", ZH: "已连接"}.In(lang),
		st.Bold.R(fmt.Sprint(c.Finished)), text.Text{EN: "finished", ZH: "已完成"}.In(lang),
		st.Err.R(fmt.Sprint(c.Failed)), text.Text{EN: "failed", ZH: "失败"}.In(lang),
		st.Dim.R(fmt.Sprint(c.TurnedAway)), text.Text{EN: "turned away", ZH: "被拒绝"}.In(lang)) + counterHeader(st, lang, c.Counters)
}

// counterHeader is the atomic room's shared counter, read from its MR at
// this refresh ("" in a write or read room).
func counterHeader(st pane.Styles, lang text.Lang, cs []workshop.BackendCounter) string {
	line := workshop.CounterLine(cs)
	if line == "" {
		return ""
	}
	value := strings.TrimPrefix(line, "counter ")
	return "  " + text.Text{EN: "shared counter", ZH: "共享计数器"}.In(lang) + " " + st.Bold.R(termtext.Safe(value))
}

// lines draws the table header and the visible rows at width w.
func (r *roster) lines(st pane.Styles, lang text.Lang, w int) []string {
	head := fmt.Sprintf("%*s %-*s %-*s %-*s %-*s %-*s %*s %s", colN, "#", colAddr, text.Text{EN: "address", ZH: "地址"}.In(lang),
		colBackend, "nic", colQPN, "QPN", colState, "QP", colPhase, text.Text{EN: "state", ZH: "状态"}.In(lang), colLast, text.Text{EN: "last", ZH: "最近"}.In(lang),
		text.Text{EN: "message · observed", ZH: "消息 · 观察到的"}.In(lang))
	out := []string{st.Dim.R(termtext.Fit(head, w))}
	if len(r.rows) == 0 {
		return append(out, st.Dim.R(text.Text{EN: "  nobody yet: attendees run `rdmatour client <this address>`", ZH: "  还没有人：学员运行 `rdmatour client <本机地址>`"}.In(lang)))
	}
	end := len(r.rows)
	if r.height > 0 {
		end = min(end, r.top+r.height)
	}
	for i := r.top; i < end; i++ {
		line := r.rowLine(r.rows[i], lang, w)
		if i == r.sel {
			line = st.Current.R(termtext.Fit(line, w))
		} else {
			line = phaseStyle(st, r.rows[i].Phase).R(termtext.Fit(line, w))
		}
		out = append(out, line)
	}
	return out
}

// rowLine is one attendee as text (no styles).
func (r *roster) rowLine(row workshop.Row, lang text.Lang, w int) string {
	qpn := "-"
	if row.QPN != 0 {
		qpn = fmt.Sprintf("0x%x", row.QPN)
	}
	state := strings.TrimPrefix(row.QPState, "IBV_QPS_")
	what := termtext.Safe(row.Observed)
	if row.Atomics != "" && !strings.Contains(row.Observed, row.Atomics) {
		what = termtext.Safe(row.Atomics) + " · " + what // what their atomics found: the room is about that
	}
	if row.Landed && !strings.Contains(row.Observed, "landed") {
		what = `"` + row.Message.String() + `" · ` + what // the message first: it is what the room is about
	}
	return fmt.Sprintf("%*d %-*s %-*s %-*s %-*s %-*s %*s %s", colN, row.N, colAddr, termtext.Truncate(row.Addr.String(), colAddr),
		colBackend, row.Backend, colQPN, qpn, colState, termtext.Truncate(state, colState), colPhase, phaseName(lang, row.Phase),
		colLast, ago(r.at.Sub(row.Last)), what)
}

// ago is a short age: 5s, 3m, 2h.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(max(d, 0)/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh", int(d/time.Hour))
}

func phaseName(lang text.Lang, p workshop.Phase) string {
	zh := map[workshop.Phase]string{workshop.PhaseConnecting: "连接中", workshop.PhaseConnected: "已连接", workshop.PhaseLanded: "数据已到",
		workshop.PhaseFinished: "已完成", workshop.PhaseFailed: "失败", workshop.PhaseDropped: "已移除", workshop.PhaseTurnedAway: "被拒绝"}
	return text.Text{EN: p.String(), ZH: zh[p]}.In(lang)
}

func phaseStyle(st pane.Styles, p workshop.Phase) termtext.Style {
	switch p {
	case workshop.PhaseFailed, workshop.PhaseDropped:
		return st.Err
	case workshop.PhaseFinished:
		return st.Dim
	case workshop.PhaseLanded:
		return st.OK
	}
	return termtext.Style{}
}
