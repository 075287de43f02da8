package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/workshop"
)

// The workshop screen's keys as on the tour's screen: ? shows every key,
// Tab and Shift-Tab move the bright border between the roster and the
// selected attendee's panes, z shows the focused one on the whole
// screen (the roster with as many rows as fit, or one pane of the
// attendee's), for a projector at 100×30.

// rosterPane is a pane of the workshop screen, in Tab order.
type rosterPane int

const (
	paneRoster rosterPane = iota
	paneState
	paneTimeline
	paneWire
	rosterPanes // how many
)

// rosterView is how the workshop screen is shown: help, focus, zoom.
type rosterView struct {
	help  bool
	focus rosterPane
	zoom  bool
}

// workshopKey is one key of the workshop screen, for its help.
type workshopKey struct {
	keys string
	what text.Text
}

// workshopKeys are every key the workshop screen takes, in the order
// its help lists them: the one table the help is drawn from.
var workshopKeys = []workshopKey{
	{"↑/↓ pgup/pgdn home/end", text.Text{EN: "select an attendee", ZH: "选择学员"}},
	{"enter", text.Text{EN: "spotlight: the selected attendee's panes on the whole screen, for the projector (esc back)", ZH: "聚焦：选中学员的面板占满屏幕，投影用（esc 返回）"}},
	{"tab/shift+tab", text.Text{EN: "move the bright border: roster, live state, timeline, wire", ZH: "移动高亮边框：名单、实时状态、时序、线上报文"}},
	{"z", text.Text{EN: "zoom the focused pane to the whole screen (z or esc back)", ZH: "把当前面板放大到整个屏幕（z 或 esc 返回）"}},
	{"n", text.Text{EN: "a room with a lesson: the tour's next lesson for the runs that start now (the plain tour after the last)", ZH: "有课程的教室：之后开始的运行换成本教程的下一课（最后一课之后回到普通教程）"}},
	{"r", text.Text{EN: "reveal the room's predictions: a bar per choice, next to what really happened", ZH: "揭晓全班的预测：每个选项一条柱，旁边是实际发生的结果"}},
	{"v", text.Text{EN: "revote: each attendee's next run asks the question again (second votes)", ZH: "重新投票：每个学员下一次运行会再问一次（第二轮投票）"}},
	{"o", text.Text{EN: "stuck and failed attendees first", ZH: "卡住和失败的学员排前面"}},
	{"s", text.Text{EN: "save the results (--results FILE: CSV and JSON lines)", ZH: "保存结果（--results FILE：CSV 和 JSON lines）"}},
	{"l", text.Text{EN: "language EN/中文/both", ZH: "语言 EN/中文/双语"}},
	{"?", text.Text{EN: "this help (any key closes it)", ZH: "本帮助（按任意键关闭）"}},
	{"q", text.Text{EN: "end the workshop (asks first while attendees are in the room)", ZH: "结束 workshop（教室里还有学员时先确认）"}},
}

// viewKey handles the keys that change how the screen is shown; false
// for any other key.
func (m *workshopModel) viewKey(msg tea.KeyPressMsg) bool {
	v := &m.view
	switch {
	case v.help:
		v.help = false // any key closes the help
	case key.Matches(msg, m.keys.Help):
		v.help = true
	case msg.String() == "tab":
		v.focus = (v.focus + 1) % rosterPanes
	case msg.String() == "shift+tab":
		v.focus = (v.focus + rosterPanes - 1) % rosterPanes
	case key.Matches(msg, m.keys.Zoom):
		v.zoom = !v.zoom
	case msg.String() == "esc" && v.zoom:
		v.zoom = false
	default:
		return false
	}
	return true
}

// rosterRowsFit is how many roster rows the screen shows: with the
// roster zoomed, all that fit under the header; else the layout's share.
func (m *workshopModel) rosterRowsFit() int {
	heads := len(m.headLines())
	if m.view.zoom && m.view.focus == paneRoster {
		return max(m.h-heads-1-3, 0) // the help line; the frame and the table's head
	}
	rows, _ := workshopLayout(m.w, m.h-heads+1, m.rosterLinesWanted())
	return rows
}

// zoomedDetail is the focused attendee pane on the whole screen but the
// help line (nil when the roster is focused or nobody is selected).
func (m *workshopModel) zoomedDetail() []string {
	d := m.detail
	if d == nil || m.view.focus == paneRoster {
		return nil
	}
	c := map[rosterPane]pane.Content{paneState: d.state, paneTimeline: d.timeline, paneWire: d.wire}[m.view.focus]
	title := "#" + strconv.Itoa(m.detailN) + " · " + c.Title
	return pane.Frame(m.styles, title, c.Lines, m.w, m.h-1, c.Top, true)
}

// rosterHelp is the help screen: every key of workshopKeys, wrapped.
func (m *workshopModel) rosterHelp() []string {
	st := m.styles
	out := []string{st.Header.R(text.Text{EN: "rdmatour workshop — keys", ZH: "rdmatour workshop —— 按键"}.In(m.lang)), ""}
	kw := 0
	for _, k := range workshopKeys {
		kw = max(kw, termtext.Width(k.keys))
	}
	for _, k := range workshopKeys {
		lines := termtext.Wrap(k.what.In(m.lang), max(m.w-kw-4, 10))
		for i, l := range lines {
			head := strings.Repeat(" ", kw)
			if i == 0 {
				head = termtext.FitAligned(k.keys, kw, false)
			}
			out = append(out, "  "+st.Bold.R(head)+"  "+l)
		}
	}
	return out
}

// srqHeader is the --srq room's lines under the header: each SRQ's fill
// level as attendees SEND, and what sharing its PD lets one attendee do
// to another (workshop.SRQPDWarning), wrapped to two lines at most.
func srqHeader(st pane.Styles, lang text.Lang, ls []workshop.SRQLevel, w int) []string {
	line := workshop.SRQLine(ls)
	if line == "" {
		return nil
	}
	out := []string{termtext.Fit(st.Bold.R(termtext.Safe(line)), w)}
	warn := termtext.Wrap("⚠ "+workshop.SRQPDWarning.In(lang), w)
	if len(warn) > 2 {
		warn = warn[:2]
		warn[1] = termtext.Fit(warn[1]+" …", w)
	}
	for _, l := range warn {
		out = append(out, st.Dim.R(termtext.Fit(l, w)))
	}
	return out
}

// headLines are the screen's header: the addresses and the counts, then
// the atomic room's shared counter on a line of its own.
func (m *workshopModel) headLines() []string {
	st := m.styles
	head := st.Header.R("rdmatour workshop") + m.planHead() + "  " + termtext.Safe(strings.Join(m.addrs, " · ")) + "  " + m.roster.header(st, m.lang)
	out := []string{termtext.Fit(head, m.w)}
	if c := counterHeader(st, m.lang, m.roster.counts.Counters); c != "" {
		out = append(out, termtext.Fit(c, m.w))
	}
	out = append(out, srqHeader(st, m.lang, m.roster.counts.SRQ, m.w)...)
	out = append(out, m.classLines()...)
	// The selected row's message · observed, which its column cuts on a
	// projector's 100 columns (Enter shows it whole).
	if r := m.roster; r.sel < len(r.rows) {
		out = append(out, st.Dim.R(termtext.Fit(fmt.Sprintf("▸ #%d %s", r.rows[r.sel].N, termtext.Safe(r.rows[r.sel].What(m.lang))), m.w)))
	}
	return out
}
