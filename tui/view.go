package tui

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// Minimum terminal size.
const (
	minW = 80
	minH = 24
)

// Tabs of the narrow layout.
const (
	tabSteps = iota
	tabExplain
	tabState
	tabTimeline
	tabWire
	numTabs
)

// narrow says whether the terminal is too narrow for columns: one pane
// at a time, chosen by a tab bar.
func (m *model) narrow() bool {
	if m.demo {
		return m.scr.w < 120 && !m.presenter()
	}
	return m.scr.w < 100
}

// presenter says the demo uses the presenter layout: a projector's
// 100×30 or so, too small for three columns, big enough to show the C
// call next to both sides' live state (the client's WRITE and the
// server's buffer on one screen).
func (m *model) presenter() bool {
	return m.demo && m.scr.w >= 100 && m.scr.w < 120 && m.scr.h >= 28
}

// focusables lists the panes tab cycles through in the current layout.
func (m *model) focusables() []slot {
	if m.presenter() {
		return []slot{{pane.Call, 0}, {pane.Explain, 0}, {pane.State, 0}, {pane.State, 1}, {pane.Timeline, 0}}
	}
	if m.narrow() {
		side := m.shownSide()
		return []slot{{pane.Steps, side}, {pane.Explain, 0}, {pane.State, side}, {pane.Timeline, 0}, {pane.Wire, side}}
	}
	if m.demo {
		return []slot{{pane.Steps, 0}, {pane.State, 0}, {pane.Call, 0}, {pane.Explain, 0}, {pane.Timeline, 0}, {pane.Steps, 1}, {pane.State, 1}}
	}
	return []slot{{pane.Steps, 0}, {pane.Call, 0}, {pane.Explain, 0}, {pane.State, 0}, {pane.Timeline, 0}, {pane.Wire, 0}}
}

// tab is the tab the narrow layout shows: the focused one.
func (m *model) tab() int { return min(m.scr.focus, numTabs-1) }

func (m *model) shownSide() int {
	if m.demo {
		return m.scr.side
	}
	return 0
}

// screen draws the whole screen from the model, writing nothing: exactly
// m.scr.h lines of exactly m.scr.w cells.
func (m *model) screen() string {
	w, h := m.scr.w, m.scr.h
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.tooSmallNow() {
		return strings.Join(m.tooSmall(), "\n")
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header(w))
	if m.page.Lesson != "" {
		lines = append(lines, m.lessonLine(w))
	}
	banner := m.bannerLines(w)
	lines = append(lines, banner...)
	bodyH := m.bodyHeight(len(banner))
	if f := m.scr.edit.form; f != nil {
		lines = append(lines, pane.Frame(m.styles, f.Title(), f.View(m.styles, w-4, bodyH-2), w, bodyH, 0, true)...)
	} else if m.scr.showHelp {
		lines = append(lines, pane.Frame(m.styles, text.Text{EN: "Help", ZH: "帮助"}.Label(m.lang), m.fullHelp(w-4), w, bodyH, 0, true)...)
	} else {
		lines = append(lines, m.draw(m.layout(w, bodyH))...)
	}
	lines = append(lines, m.footer(w))
	return strings.Join(termtext.Block(lines, w, h), "\n")
}

// bannerLines is the banner as shown: a long error must not push the
// live state (where the learner sees the QP go to ERR) off a small screen.
func (m *model) bannerLines(w int) []string {
	banner := m.banner(w)
	if limit := max(2, m.bodyHeight(0)/5); len(banner) > limit {
		banner = banner[:limit]
	}
	return banner
}

// bodyHeight is what the header, the lesson line, a banner of n lines
// and the help line leave for the panes.
func (m *model) bodyHeight(n int) int {
	h := m.scr.h - 2 - n
	if m.page.Lesson != "" {
		h--
	}
	return h
}

// tooSmallNow says the terminal is below the minimum size: the screen
// shows only a notice.
func (m *model) tooSmallNow() bool { return m.scr.w < minW || m.scr.h < minH }

func (m *model) tooSmall() []string {
	msg := fmt.Sprintf("terminal too small: %d×%d, need at least %d×%d — enlarge the window", m.scr.w, m.scr.h, minW, minH)
	zh := fmt.Sprintf("终端太小：%d×%d，至少需要 %d×%d —— 请把窗口放大", m.scr.w, m.scr.h, minW, minH)
	var lines []string
	switch m.lang {
	case text.ZH:
		lines = termtext.Wrap(zh, m.scr.w)
	case text.Both:
		lines = append(termtext.Wrap(msg, m.scr.w), termtext.Wrap(zh, m.scr.w)...)
	default:
		lines = termtext.Wrap(msg, m.scr.w)
	}
	if len(lines) > m.scr.h && m.scr.h > 0 {
		// Nothing is cut silently: the last row that fits says more follows.
		lines = append(lines[:m.scr.h-1:m.scr.h-1], termtext.Truncate(lines[m.scr.h-1]+"…", m.scr.w))
	}
	out := make([]string, m.scr.h)
	top := max(0, (m.scr.h-len(lines))/2)
	for i := range out {
		s := ""
		if j := i - top; j >= 0 && j < len(lines) {
			s = m.styles.Bold.R(lines[j])
		}
		out[i] = termtext.Center(s, m.scr.w)
	}
	return out
}

// header: side, backend (+ simulated label), lesson, language, progress.
func (m *model) header(w int) string {
	st := m.styles
	snap := m.snaps[0]
	side := snap.Role.String()
	if m.demo {
		side = text.Text{EN: "demo: server + client", ZH: "演示：server + client"}.In(m.lang)
	} else if m.lang == text.ZH {
		side = map[steps.Role]string{steps.Server: "server 端", steps.Client: "client 端"}[snap.Role]
	}
	done, total := m.progress()
	right := fmt.Sprintf("%d/%d ", done, total)
	if m.run.on {
		right = st.Running.R(m.run.spin.View()) + " " + right
	}
	rw := termtext.Width(right)
	notify := ""
	switch {
	case m.demo:
	case !tourNotifies(snap.Tour): // only a tour with a notify step has --notify
		notify = "tour=" + snap.Tour.String()
	default:
		notify = "notify=" + snap.Notify.String()
	}
	// Drop the least important parts until the line fits.
	for _, drop := range []int{0, 1, 2, 3} {
		var parts []string
		if drop < 3 {
			parts = append(parts, st.Header.R("rdmatour"))
		}
		if drop == 3 && m.demo {
			side = text.Text{EN: "demo", ZH: "演示"}.In(m.lang)
		}
		parts = append(parts, st.Bold.R(side), m.replayMark()+m.in.BackendLabel(snap))
		if notify != "" && drop < 1 {
			parts = append(parts, notify)
		}
		parts = append(parts, pane.LangLabel(m.lang))
		sep := "  "
		if drop >= 2 {
			sep = " "
		}
		left := " " + strings.Join(parts, sep)
		if termtext.Width(left) <= w-rw || drop == 3 {
			return termtext.Fit(left, w-rw) + right
		}
	}
	return ""
}

// lessonLine is the header's second line when a lesson runs: its name,
// title and, where there is room, its one-line summary.
func (m *model) lessonLine(w int) string {
	st := m.styles
	snap := m.snaps[0]
	var ttl, summary string
	l := snap.LessonSummary // in the snapshot: no lookup by name per frame
	switch m.lang {
	case text.ZH:
		ttl = snap.LessonTitle.In(text.ZH)
		summary = l.In(text.ZH)
	case text.Both:
		ttl = snap.LessonTitle.EN
		if snap.LessonTitle.ZH != "" && snap.LessonTitle.ZH != ttl {
			ttl += " · " + snap.LessonTitle.ZH
		}
		summary = l.EN
	default:
		ttl = snap.LessonTitle.EN
		summary = l.EN
	}
	line := " " + st.Expected.R(text.Text{EN: "Lesson ", ZH: "课程 "}.In(m.lang)+m.page.Lesson) + st.Bold.R(": "+ttl)
	if summary = m.in.LessonStatus(summary); summary != "" {
		line += st.Dim.R(" — " + summary)
	}
	return termtext.Fit(line, w)
}

func (m *model) progress() (done, total int) {
	if m.demo {
		return m.planPos, len(m.plan)
	}
	s := m.liveSnap(0)
	for _, st := range s.Steps {
		if st.State == steps.Succeeded {
			done++
		}
	}
	return done, len(s.Steps)
}

func (m *model) fullHelp(w int) []string {
	hm := m.help // a copy: View must not change the model
	hm.SetWidth(w)
	lines := strings.Split(hm.FullHelpView(m.keys.FullHelp()), "\n")
	lines = append(lines, "")
	lines = append(lines, termtext.Wrap(m.layoutHelp(text.Text{
		EN: "Each keypress makes one real verbs / rdma_cm call. The left panes say what the call is and why; the right ones show what it changed. Press ? again to close this help.",
		ZH: "每按一次键就执行一个真实的 verbs / rdma_cm 调用。左边讲这个调用是什么、为什么；右边显示它改变了什么。再按 ? 关闭帮助。"}), w)...)
	lines = append(lines, "")
	lines = append(lines, termtext.Wrap(m.lessonsHelp(), w)...)
	return lines
}

func (m *model) isFocused(p slot) bool { return !m.scr.showHelp && m.focused() == p }

func (m *model) tabBar(w int) string {
	st := m.styles
	names := []string{
		text.Text{EN: "Steps", ZH: "步骤"}.Label(m.lang), text.Text{EN: "Explain", ZH: "讲解"}.Label(m.lang), text.Text{EN: "State", ZH: "状态"}.Label(m.lang),
		text.Text{EN: "Timeline", ZH: "时序"}.Label(m.lang), text.Text{EN: "Wire", ZH: "线上报文"}.Label(m.lang),
	}
	var b strings.Builder
	b.WriteString(" ")
	for i, n := range names {
		if i == m.tab() {
			if st.NoColor {
				b.WriteString("[" + n + "]")
			} else {
				b.WriteString(st.TabActive.R(" " + n + " "))
			}
		} else {
			b.WriteString(st.TabIdle.R(" " + n + " "))
		}
		b.WriteString(" ")
	}
	if m.demo {
		sides := [2]string{"server", "client"}
		sides[m.scr.side] = st.Bold.R("[" + sides[m.scr.side] + "]")
		b.WriteString(" s: " + sides[0] + "|" + sides[1])
	}
	return termtext.Fit(b.String(), w)
}
