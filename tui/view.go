package tui

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
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
		return m.w < 120 && !m.presenter()
	}
	return m.w < 100
}

// presenter says the demo uses the presenter layout: a projector's
// 100×30 or so, too small for three columns, big enough to show the C
// call next to both sides' live state (the client's WRITE and the
// server's buffer on one screen).
func (m *model) presenter() bool {
	return m.demo && m.w >= 100 && m.w < 120 && m.h >= 28
}

// focusables lists the panes tab cycles through in the current layout.
func (m *model) focusables() []pane {
	if m.presenter() {
		return []pane{{paneCall, 0}, {paneExplain, 0}, {paneState, 0}, {paneState, 1}, {paneTimeline, 0}}
	}
	if m.narrow() {
		side := m.shownSide()
		return []pane{{paneSteps, side}, {paneExplain, 0}, {paneState, side}, {paneTimeline, 0}, {paneWire, side}}
	}
	if m.demo {
		return []pane{{paneSteps, 0}, {paneState, 0}, {paneCall, 0}, {paneExplain, 0}, {paneTimeline, 0}, {paneSteps, 1}, {paneState, 1}}
	}
	return []pane{{paneSteps, 0}, {paneCall, 0}, {paneExplain, 0}, {paneState, 0}, {paneTimeline, 0}, {paneWire, 0}}
}

// tab is the tab the narrow layout shows: the focused one.
func (m *model) tab() int { return min(m.focus, numTabs-1) }

func (m *model) shownSide() int {
	if m.demo {
		return m.side
	}
	return 0
}

// screen draws the whole screen from the model, writing nothing: exactly
// m.h lines of exactly m.w cells.
func (m *model) screen() string {
	w, h := m.w, m.h
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.tooSmallNow() {
		return strings.Join(m.tooSmall(), "\n")
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header(w))
	if m.lesson != "" {
		lines = append(lines, m.lessonLine(w))
	}
	banner := m.bannerLines(w)
	lines = append(lines, banner...)
	bodyH := m.bodyHeight(len(banner))
	if m.showHelp {
		lines = append(lines, frame(m.styles, title(m.lang, "Help", "帮助"), m.fullHelp(w-4), w, bodyH, 0, true)...)
	} else {
		lines = append(lines, m.draw(m.layout(w, bodyH))...)
	}
	lines = append(lines, m.footer(w))
	return strings.Join(block(lines, w, h), "\n")
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
	h := m.h - 2 - n
	if m.lesson != "" {
		h--
	}
	return h
}

// tooSmallNow says the terminal is below the minimum size: the screen
// shows only a notice.
func (m *model) tooSmallNow() bool { return m.w < minW || m.h < minH }

func (m *model) tooSmall() []string {
	msg := fmt.Sprintf("terminal too small: %d×%d, need at least %d×%d — enlarge the window", m.w, m.h, minW, minH)
	zh := fmt.Sprintf("终端太小：%d×%d，至少需要 %d×%d —— 请把窗口放大", m.w, m.h, minW, minH)
	var text []string
	switch m.lang {
	case steps.LangZH:
		text = wrap(zh, m.w)
	case steps.LangBoth:
		text = append(wrap(msg, m.w), wrap(zh, m.w)...)
	default:
		text = wrap(msg, m.w)
	}
	if len(text) > m.h && m.h > 0 {
		// Nothing is cut silently: the last row that fits says more follows.
		text = append(text[:m.h-1:m.h-1], truncate(text[m.h-1]+"…", m.w))
	}
	out := make([]string, m.h)
	top := max(0, (m.h-len(text))/2)
	for i := range out {
		s := ""
		if j := i - top; j >= 0 && j < len(text) {
			s = m.styles.Bold.R(text[j])
		}
		out[i] = center(s, m.w)
	}
	return out
}

// header: side, backend (+ simulated label), lesson, language, progress.
func (m *model) header(w int) string {
	st := m.styles
	snap := m.snaps[0]
	side := snap.Role.String()
	if m.demo {
		side = tr(m.lang, "demo: server + client", "演示：server + client")
	} else if m.lang == steps.LangZH {
		side = map[steps.Role]string{steps.Server: "server 端", steps.Client: "client 端"}[snap.Role]
	}
	done, total := m.progress()
	right := fmt.Sprintf("%d/%d ", done, total)
	if m.running {
		right = st.Running.R(m.spin.View()) + " " + right
	}
	rw := width(right)
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
			side = tr(m.lang, "demo", "演示")
		}
		parts = append(parts, st.Bold.R(side), m.replayMark()+m.backendLabel(snap))
		if notify != "" && drop < 1 {
			parts = append(parts, notify)
		}
		parts = append(parts, langLabel(m.lang))
		sep := "  "
		if drop >= 2 {
			sep = " "
		}
		left := " " + strings.Join(parts, sep)
		if width(left) <= w-rw || drop == 3 {
			return fit(left, w-rw) + right
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
	l := snap.LessonSummary
	switch m.lang {
	case steps.LangZH:
		ttl = snap.LessonTitle.In(steps.LangZH.String())
		summary = l.In(steps.LangZH.String())
	case steps.LangBoth:
		ttl = snap.LessonTitle.EN
		if snap.LessonTitle.ZH != "" && snap.LessonTitle.ZH != ttl {
			ttl += " · " + snap.LessonTitle.ZH
		}
		summary = l.EN
	default:
		ttl = snap.LessonTitle.EN
		summary = l.EN
	}
	line := " " + st.Expected.R(tr(m.lang, "Lesson ", "课程 ")+m.lesson) + st.Bold.R(": "+ttl)
	if summary = m.lessonStatus(summary); summary != "" {
		line += st.Dim.R(" — " + summary)
	}
	return fit(line, w)
}

func (m *model) backendLabel(s steps.Snapshot) string {
	dev := ""
	if s.Device != nil {
		dev = s.Device.Info.Name
	}
	if s.Simulated {
		if dev == "" {
			dev = "sim0"
		}
		return m.styles.Sim.R(" " + tr(m.lang, "SIMULATED NIC ("+dev+") — not real RDMA", "模拟网卡（"+dev+"）—— 非真实 RDMA") + " ")
	}
	label := "RDMA"
	if dev != "" {
		label += " " + dev
		if s.Device.Info.Transport != "" {
			label += " (" + s.Device.Info.Transport + ")"
		}
	} else if s.Backend != "" {
		label += " (" + s.Backend + ")"
	}
	return m.styles.Real.R(label)
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

// banner is the tour's end (the Result) or its error, full width.
func (m *model) banner(w int) []string {
	if out := m.historyBanner(w); len(out) > 0 {
		return out
	}
	if out := m.errorBanner(w); len(out) > 0 {
		return out
	}
	return m.endBanner(w)
}

// bannerLine wraps text into full-width banner lines in style s.
func bannerLine(s sty, mark, text string, w int) []string {
	var out []string
	for _, l := range wrap(mark+text, w-2) {
		out = append(out, s.R(fit(" "+l, w)))
	}
	return out
}

// errorBanner says which step failed on which side, and why.
func (m *model) errorBanner(w int) []string {
	st := m.styles
	var out []string
	for i, snap := range m.snaps {
		if m.errs[i] == nil && !snap.Failed {
			continue
		}
		who := snap.Role.String()
		var stepTitle steps.Text // each banner line in its own language
		for _, ss := range snap.Steps {
			if ss.State == steps.FailedState {
				stepTitle = ss.Title
			}
		}
		explain := func(lang string) string {
			if m.errs[i] != nil {
				return steps.ExplainIn(m.errs[i], lang)
			}
			return snap.Err
		}
		en := fmt.Sprintf("%s: %s failed: %s", who, stepTitle.In("en"), m.inlineCode(explain(steps.LangEN.String())))
		zh := fmt.Sprintf("%s：「%s」失败：%s", who, stepTitle.In("zh"), m.inlineCode(explain(steps.LangZH.String())))
		switch m.lang {
		case steps.LangBoth:
			out = append(out, bannerLine(st.ErrBanner, "✗ ", en, w)...)
			out = append(out, bannerLine(st.ErrBanner, "  ", zh, w)...)
		case steps.LangZH:
			out = append(out, bannerLine(st.ErrBanner, "✗ ", zh, w)...)
		default:
			out = append(out, bannerLine(st.ErrBanner, "✗ ", en, w)...)
		}
		stopped := tr(m.lang, "The tour stopped here. Press q to tear down and quit.", "教程到此中止。按 q 释放资源并退出。")
		if m.replaying() {
			stopped = tr(m.lang, "The recorded tour stopped here. Press q to quit.", "录制的教程到此中止。按 q 退出。")
		}
		out = append(out, st.Err.R(fit(" "+stopped, w)))
	}
	return out
}

// endBanner is the tour's result: what landed in the server's buffer
// and how it learned of it; or a lesson or tour complete.
func (m *model) endBanner(w int) []string {
	st := m.styles
	inLang := func(en, zh string) []string {
		switch m.lang {
		case steps.LangZH:
			return bannerLine(st.OKBanner, "✓ ", zh, w)
		case steps.LangBoth:
			return append(bannerLine(st.OKBanner, "✓ ", en, w), bannerLine(st.OKBanner, "  ", zh, w)...)
		}
		return bannerLine(st.OKBanner, "✓ ", en, w)
	}
	var out []string
	for _, snap := range m.snaps {
		if r := snap.Result; r != nil {
			sentence := r.Sentence()
			out = inLang(sentence.EN, sentence.ZH)
			if !tourNotifies(r.Tour) {
				return out // as before the catalogue: the read and atomic tours' banner is their result alone
			}
			break
		}
	}
	if !m.allDone() {
		return out
	}
	// Every side says the tour is over (what to try next is in the call pane).
	if m.lesson != "" {
		if what := m.firstExpected(); what != "" {
			return append(out, bannerLine(st.OKBanner, "✓ ", tr(m.lang,
				"Lesson complete: the expected error ("+what+") happened, and every step after it went as the lesson says. L: the lesson page · q: quit.",
				"课程完成：预期的错误（"+what+"）出现了，之后每一步都和课程讲的一样。L：课程讲解 · q：退出。"), w)...)
		}
	}
	next := guide.NextToTryShort(m.tourConfig()).In(textLang(m.lang))
	done := tr(m.lang, "Tour complete: every resource is released. ", "教程完成：所有资源都已释放。")
	if m.replaying() {
		done = tr(m.lang, "Replay complete: this is where the recorded tour ended. ", "回放完成：录制的教程到此结束。")
	}
	return append(out, bannerLine(st.OKBanner, "✓ ", done+next+tr(m.lang, " — q quits.", " —— 按 q 退出。"), w)...)
}

// firstExpected names the first expected error of the lesson in the
// order the steps ran (the root cause; later ones follow from it), or "".
func (m *model) firstExpected() string {
	var order []steps.Turn
	if m.demo {
		order = m.plan
	} else {
		for i := range m.snaps[0].Steps {
			order = append(order, steps.Turn{Index: i})
		}
	}
	for _, t := range order {
		side := 0
		if m.demo && t.Side == steps.Client {
			side = 1
		}
		ss, ok := m.stepStatus(side, t.Index)
		if !ok || !expectedError(ss) {
			continue
		}
		if tour := m.tourOf(side); t.Index < len(tour) && tour[t.Index].Expect != nil {
			return tour[t.Index].Expect.What.In(textLang(m.lang))
		}
		return ss.Outcome.Failure.In(textLang(m.lang))
	}
	return ""
}

func (m *model) fullHelp(w int) []string {
	hm := m.help // a copy: View must not change the model
	hm.SetWidth(w)
	lines := strings.Split(hm.FullHelpView(m.keys.FullHelp()), "\n")
	lines = append(lines, "")
	lines = append(lines, wrap(m.layoutHelp(
		"Each keypress makes one real verbs / rdma_cm call. The left panes say what the call is and why; the right ones show what it changed. Press ? again to close this help.",
		"每按一次键就执行一个真实的 verbs / rdma_cm 调用。左边讲这个调用是什么、为什么；右边显示它改变了什么。再按 ? 关闭帮助。"), w)...)
	lines = append(lines, "")
	lines = append(lines, wrap(m.lessonsHelp(), w)...)
	return lines
}

func (m *model) isFocused(p pane) bool { return !m.showHelp && m.focused() == p }

func (m *model) tabBar(w int) string {
	st := m.styles
	names := []string{
		title(m.lang, "Steps", "步骤"), title(m.lang, "Explain", "讲解"), title(m.lang, "State", "状态"),
		title(m.lang, "Timeline", "时序"), title(m.lang, "Wire", "线上报文"),
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
		sides[m.side] = st.Bold.R("[" + sides[m.side] + "]")
		b.WriteString(" s: " + sides[0] + "|" + sides[1])
	}
	return fit(b.String(), w)
}

// tourNotifies says the tour has a notify step (the catalogue's word).
func tourNotifies(kind steps.TourKind) bool {
	d, _ := steps.TourOf(kind)
	return d.Notifies
}
