package tui

import (
	"fmt"
	"slices"
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
	// needFirst puts the attendees who need the instructor on top:
	// stuck, then failed, each in order of arrival.
	needFirst bool
}

// setRows replaces the rows, keeping the selection on the same attendee.
func (r *roster) setRows(rows []workshop.Row, counts workshop.Counts, at time.Time) {
	selN := 0
	if r.sel < len(r.rows) {
		selN = r.rows[r.sel].N
	}
	if r.needFirst {
		rows = append([]workshop.Row(nil), rows...)
		slices.SortStableFunc(rows, func(a, b workshop.Row) int { return need(b) - need(a) })
	}
	r.rows, r.counts, r.at = rows, counts, at
	for i, row := range rows {
		if row.N == selN {
			r.sel = i
		}
	}
	r.clamp()
}

// need is how much a row needs the instructor, for needFirst.
func need(r workshop.Row) int {
	switch {
	case r.Stuck:
		return 2
	case r.Phase == workshop.PhaseFailed || r.Phase == workshop.PhaseDropped:
		return 1
	}
	return 0
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

// header is the counts line.
func (r *roster) header(st pane.Styles, lang text.Lang) string {
	c := r.counts
	return fmt.Sprintf("%s %s  %s %s  %s %s  %s %s  %s %s",
		st.Bold.R(fmt.Sprint(c.Finished)), text.Text{EN: "done", ZH: "已完成"}.In(lang),
		st.OK.R(fmt.Sprint(c.Connected-c.Stuck)), text.Text{EN: "running", ZH: "进行中"}.In(lang),
		st.Err.R(fmt.Sprint(c.Stuck)), text.Text{EN: "stuck", ZH: "卡住"}.In(lang),
		st.Err.R(fmt.Sprint(c.Failed)), text.Text{EN: "failed", ZH: "失败"}.In(lang),
		st.Dim.R(fmt.Sprint(c.TurnedAway)), text.Text{EN: "turned away", ZH: "被拒绝"}.In(lang))
}

// counterHeader is the atomic room's shared counter, read from its MR at
// this refresh ("" in a write or read room). It has a line of its own
// under the header: on a 100-column projector the counts and the
// addresses fill the first.
func counterHeader(st pane.Styles, lang text.Lang, cs []workshop.BackendCounter) string {
	line := workshop.CounterLine(cs)
	if line == "" {
		return ""
	}
	value := strings.TrimPrefix(line, "counter ")
	return text.Text{EN: "shared counter", ZH: "共享计数器"}.In(lang) + " " + st.Bold.R(termtext.Safe(value))
}

// lines draws the table header and the visible rows at width w, the
// columns workshop.Columns.
func (r *roster) lines(st pane.Styles, lang text.Lang, w int) []string {
	cols := workshop.Columns()
	head := workshop.Line(cols, workshop.Heads(cols, lang), " ", 0, termtext.FitAligned)
	out := []string{st.Dim.R(termtext.Fit(head, w))}
	if len(r.rows) == 0 {
		return append(out, st.Dim.R(text.Text{EN: "  nobody yet: attendees run `rdmatour client <this address>`", ZH: "  还没有人：学员运行 `rdmatour client <本机地址>`"}.In(lang)))
	}
	end := len(r.rows)
	if r.height > 0 {
		end = min(end, r.top+r.height)
	}
	for i := r.top; i < end; i++ {
		line := rowLine(cols, r.rows[i], r.at, lang)
		if i == r.sel {
			line = st.Current.R(termtext.Fit(line, w))
		} else {
			line = phaseStyle(st, r.rows[i].Phase).R(termtext.Fit(line, w))
		}
		out = append(out, line)
	}
	return out
}

// rowLine is one attendee as text (no styles), its cells escaped: the
// address, message and observation carry the attendee's bytes.
func rowLine(cols []workshop.Column, row workshop.Row, at time.Time, lang text.Lang) string {
	cells := workshop.Cells(cols, row, at, lang)
	for i := range cells {
		cells[i] = termtext.Safe(cells[i])
	}
	return workshop.Line(cols, cells, " ", 0, termtext.FitAligned)
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
