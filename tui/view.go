package tui

import (
	"fmt"
	"strings"

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

// wide says whether the terminal is wide enough for columns.
func (m *model) narrow() bool {
	if m.demo {
		return m.w < 120
	}
	return m.w < 100
}

// focusables lists the panes tab cycles through in the current layout.
func (m *model) focusables() []pane {
	if m.narrow() {
		side := m.shownSide()
		return []pane{{paneSteps, side}, {paneExplain, 0}, {paneState, side}, {paneTimeline, 0}, {paneWire, side}}
	}
	if m.demo {
		return []pane{{paneSteps, 0}, {paneState, 0}, {paneCall, 0}, {paneExplain, 0}, {paneTimeline, 0}, {paneSteps, 1}, {paneState, 1}}
	}
	return []pane{{paneSteps, 0}, {paneCall, 0}, {paneExplain, 0}, {paneState, 0}, {paneTimeline, 0}, {paneWire, 0}}
}

func (m *model) shownSide() int {
	if m.demo {
		return m.side
	}
	return 0
}

// render draws the whole screen: exactly m.h lines of exactly m.w cells.
func (m *model) render() string {
	w, h := m.w, m.h
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < minW || h < minH {
		return strings.Join(m.tooSmall(), "\n")
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header(w))
	bodyH := h - 2
	if m.lesson != "" {
		lines = append(lines, m.lessonLine(w))
		bodyH--
	}
	banner := m.banner(w)
	// A long error must not push the live state (where the learner sees
	// the QP go to ERR) off a small screen.
	if limit := max(2, bodyH/5); len(banner) > limit {
		banner = banner[:limit]
	}
	lines = append(lines, banner...)
	bodyH -= len(banner)
	switch {
	case m.showHelp:
		lines = append(lines, m.box(pane{-1, 0}, title(m.lang, "Help", "帮助"), m.fullHelp(w-4), w, bodyH, true)...)
	case m.narrow():
		lines = append(lines, m.narrowBody(w, bodyH)...)
	case m.demo:
		lines = append(lines, m.demoBody(w, bodyH)...)
	default:
		lines = append(lines, m.wideBody(w, bodyH)...)
	}
	lines = append(lines, fit(m.help.ShortHelpView(m.keys.ShortHelp()), w))
	return strings.Join(block(lines, w, h), "\n")
}

func (m *model) tooSmall() []string {
	msg := fmt.Sprintf("terminal too small: %d×%d, need at least %d×%d — enlarge the window", m.w, m.h, minW, minH)
	zh := fmt.Sprintf("终端太小：%d×%d，至少需要 %d×%d —— 请把窗口放大", m.w, m.h, minW, minH)
	var text []string
	switch m.lang {
	case LangZH:
		text = wrap(zh, m.w)
	case LangBoth:
		text = append(wrap(msg, m.w), wrap(zh, m.w)...)
	default:
		text = wrap(msg, m.w)
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
	} else if m.lang == LangZH {
		side = map[steps.Role]string{steps.Server: "server 端", steps.Client: "client 端"}[snap.Role]
	}
	done, total := m.progress()
	right := fmt.Sprintf("%d/%d ", done, total)
	if m.running {
		right = st.Running.R(spinnerFrame(m.frame)) + " " + right
	}
	rw := width(right)
	notify := ""
	if !m.demo {
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
		parts = append(parts, st.Bold.R(side), m.backendLabel(snap))
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
	l, err := steps.LessonByName(m.lesson)
	switch m.lang {
	case LangZH:
		ttl = snap.LessonTitle.In(LangZH)
		summary = l.Summary.In(LangZH)
	case LangBoth:
		ttl = snap.LessonTitle.EN
		if snap.LessonTitle.ZH != "" && snap.LessonTitle.ZH != ttl {
			ttl += " · " + snap.LessonTitle.ZH
		}
		summary = l.Summary.EN
	default:
		ttl = snap.LessonTitle.EN
		summary = l.Summary.EN
	}
	if err != nil {
		summary = ""
	}
	line := " " + st.Expected.R(tr(m.lang, "Lesson ", "课程 ")+m.lesson) + st.Bold.R(": "+ttl)
	if summary != "" {
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
		return m.styles.Sim.R(" " + tr(m.lang, "SIMULATED NIC ("+dev+") — not real RDMA", "SIMULATED NIC 模拟网卡（"+dev+"）— 非真实 RDMA") + " ")
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
	s := m.snaps[0]
	for _, st := range s.Steps {
		if st.State == steps.Succeeded {
			done++
		}
	}
	return done, len(s.Steps)
}

func spinnerFrame(i int) string {
	const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
	r := []rune(frames)
	return string(r[i%len(r)])
}

// banner is the tour's end (the Result) or its error, full width.
func (m *model) banner(w int) []string {
	st := m.styles
	var out []string
	add := func(s sty, mark, text string) {
		for _, l := range wrap(mark+text, w-2) {
			out = append(out, s.R(fit(" "+l, w)))
		}
	}
	for i, snap := range m.snaps {
		if m.errs[i] == nil && !snap.Failed {
			continue
		}
		who := snap.Role.String()
		stepTitle := ""
		for _, ss := range snap.Steps {
			if ss.State == steps.FailedState {
				stepTitle = ss.Title.In(textLang(m.lang))
			}
		}
		explain := func(lang string) string {
			if m.errs[i] != nil {
				return steps.ExplainIn(m.errs[i], lang)
			}
			return snap.Err
		}
		switch m.lang {
		case LangBoth:
			add(st.ErrBanner, "✗ ", fmt.Sprintf("%s: %s failed: %s", who, stepTitle, explain(LangEN)))
			add(st.ErrBanner, "  ", fmt.Sprintf("%s：%s 失败：%s", who, stepTitle, explain(LangZH)))
		case LangZH:
			add(st.ErrBanner, "✗ ", fmt.Sprintf("%s：%s 失败：%s", who, stepTitle, explain(LangZH)))
		default:
			add(st.ErrBanner, "✗ ", fmt.Sprintf("%s: %s failed: %s", who, stepTitle, explain(LangEN)))
		}
		out = append(out, st.Err.R(fit(" "+tr(m.lang, "The tour stopped here. Press q to tear down and quit.", "教程到此中止。按 q 释放资源并退出。"), w)))
	}
	if len(out) > 0 {
		return out
	}
	for _, snap := range m.snaps {
		if r := snap.Result; r != nil {
			how := map[steps.Notify][2]string{
				steps.NotifySend:     {"a SEND completed its posted RECV", "一个 SEND 消耗了它 post 的 RECV，产生完成"},
				steps.NotifyDoorbell: {"its CPU saw the doorbell flag turn 1", "它的 CPU 看到 doorbell 标志位变成了 1"},
				steps.NotifyImm:      {"RDMA_WRITE_WITH_IMM raised a RECV completion", "RDMA_WRITE_WITH_IMM 产生了一个 RECV 完成"},
			}[r.Via]
			en := fmt.Sprintf("The server's buffer holds %q. It learned of it because %s (%s).", r.Message, how[0], r.Notice)
			zh := fmt.Sprintf("server 的 buffer 里现在是 %q。它之所以知道，是因为%s（%s）。", r.Message, how[1], r.Notice)
			switch m.lang {
			case LangZH:
				add(st.OKBanner, "✓ ", zh)
			case LangBoth:
				add(st.OKBanner, "✓ ", en)
				add(st.OKBanner, "  ", zh)
			default:
				add(st.OKBanner, "✓ ", en)
			}
			return out
		}
	}
	if m.lesson != "" && m.allDone() {
		if what := m.firstExpected(); what != "" {
			add(st.OKBanner, "✓ ", tr(m.lang,
				"Lesson complete: the expected error ("+what+") happened, and every step after it went as the lesson says. L: the lesson page · q: quit.",
				"课程完成：预期的错误（"+what+"）出现了，之后每一步都和课程讲的一样。L：课程讲解 · q：退出。"))
			return out
		}
	}
	if m.allDone() && !m.demo {
		add(st.OKBanner, "✓ ", tr(m.lang, "Tour complete: every resource is released. Press q to quit.", "教程完成：所有资源都已释放。按 q 退出。"))
	}
	return out
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
	m.help.SetWidth(w)
	lines := strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n")
	m.help.SetWidth(m.w)
	lines = append(lines, "")
	lines = append(lines, wrap(tr(m.lang,
		"Each keypress makes one real verbs / rdma_cm call. The left panes say what the call is and why; the right ones show what it changed. Press ? again to close this help.",
		"每按一次键就执行一个真实的 verbs / rdma_cm 调用。左边讲这个调用是什么、为什么；右边显示它改变了什么。再按 ? 关闭帮助。"), w)...)
	return lines
}

// box frames content with a titled border, exactly w×h, scrolled to the
// pane's offset. auto >= 0 is a line to keep in view when the user has
// not scrolled the pane (the current step, the newest packet).
func (m *model) box(p pane, ttl string, content []string, w, h int, focused bool) []string {
	return m.boxAt(p, ttl, content, w, h, focused, 0)
}

func (m *model) boxAuto(p pane, ttl string, content []string, w, h int, focused bool, auto int) []string {
	return m.boxAt(p, ttl, content, w, h, focused, auto-(h-2)/2)
}

// boxAt is box with the first line to show when the user has not scrolled
// (auto < 0... clamps to the top).
func (m *model) boxAt(p pane, ttl string, content []string, w, h int, focused bool, top int) []string {
	if h <= 0 || w <= 0 {
		return nil
	}
	if h < 3 || w < 6 {
		return block(nil, w, h)
	}
	st := m.styles
	bs := st.Border
	if focused {
		bs = st.Focus
	}
	iw, ih := w-4, h-2
	maxOff := max(0, len(content)-ih)
	m.maxScroll[p] = maxOff
	off, set := m.scroll[p]
	if !set {
		off = top
	}
	off = min(max(off, 0), maxOff)
	ttl = truncate(ttl, w-6)
	border := bs.R("╭─ ") + st.Title.R(ttl) + bs.R(" "+strings.Repeat("─", max(0, w-5-width(ttl)))+"╮")
	out := make([]string, 0, h)
	out = append(out, border)
	for i := 0; i < ih; i++ {
		s := ""
		if j := off + i; j < len(content) {
			s = content[j]
		}
		out = append(out, bs.R("│")+" "+fit(s, iw)+" "+bs.R("│"))
	}
	more := ""
	if maxOff > 0 {
		more = fmt.Sprintf(" %d-%d/%d ", off+1, min(off+ih, len(content)), len(content))
		if focused {
			more = " ↑↓" + more
		}
	}
	fill := max(0, w-2-width(more)-1)
	out = append(out, bs.R("╰"+strings.Repeat("─", fill))+st.Dim.R(more)+bs.R("─╯"))
	return out
}

func (m *model) isFocused(p pane) bool { return !m.showHelp && m.focused() == p }

// split divides n into parts by weights, each at least 3.
func split(n int, weights ...int) []int {
	total := 0
	for _, w := range weights {
		total += w
	}
	out := make([]int, len(weights))
	used := 0
	for i, w := range weights {
		out[i] = n * w / total
		used += out[i]
	}
	out[len(out)-1] += n - used
	return out
}

// narrowBody: the current step's call on top, then one tab.
func (m *model) narrowBody(w, h int) []string {
	callH := min(7, max(4, h/3))
	side := m.shownSide()
	out := m.box(pane{paneCall, 0}, m.callTitle(), m.callLines(w-4), w, callH, false)
	out = append(out, m.tabBar(w))
	th := h - callH - 1
	m.tab = min(m.focus, numTabs-1)
	ps := m.focusables()
	p := ps[m.tab]
	switch m.tab {
	case tabSteps:
		lines, cur := m.stepsLines(side, w-4)
		out = append(out, m.boxAuto(p, m.stepsTitle(side), lines, w, th, true, cur)...)
	case tabExplain:
		out = append(out, m.box(p, m.explainTitle(), m.explainLines(w-4), w, th, true)...)
	case tabState:
		lines, anchor := m.stateLinesAnchored(side, w-4)
		out = append(out, m.boxAt(p, m.stateTitle(side), lines, w, th, true, anchor)...)
	case tabTimeline:
		lines := m.timelineLines(w - 4)
		out = append(out, m.boxAuto(p, title(m.lang, "Timeline", "时序"), lines, w, th, true, len(lines))...)
	case tabWire:
		lines := m.wireLines(side, w-4)
		out = append(out, m.boxAuto(p, m.wireTitle(side), lines, w, th, true, len(lines))...)
	}
	return out
}

func (m *model) tabBar(w int) string {
	st := m.styles
	names := []string{
		title(m.lang, "Steps", "步骤"), title(m.lang, "Explain", "讲解"), title(m.lang, "State", "状态"),
		title(m.lang, "Timeline", "时序"), title(m.lang, "Wire", "线上报文"),
	}
	var b strings.Builder
	b.WriteString(" ")
	for i, n := range names {
		if i == m.tab {
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

// wideBody: columns for one session.
func (m *model) wideBody(w, h int) []string {
	if w >= 150 {
		cw := split(w, 27, 36, 37)
		c1 := split(h, 55, 45)
		c2 := split(h, 35, 65)
		c3 := split(h, 65, 35)
		steps, cur := m.stepsLines(0, cw[0]-4)
		tl := m.timelineLines(cw[0] - 4)
		wire := m.wireLines(0, cw[2]-4)
		col1 := append(m.boxAuto(pane{paneSteps, 0}, m.stepsTitle(0), steps, cw[0], c1[0], m.isFocused(pane{paneSteps, 0}), cur),
			m.boxAuto(pane{paneTimeline, 0}, title(m.lang, "Timeline", "时序"), tl, cw[0], c1[1], m.isFocused(pane{paneTimeline, 0}), len(tl))...)
		col2 := append(m.box(pane{paneCall, 0}, m.callTitle(), m.callLines(cw[1]-4), cw[1], c2[0], m.isFocused(pane{paneCall, 0})),
			m.box(pane{paneExplain, 0}, m.explainTitle(), m.explainLines(cw[1]-4), cw[1], c2[1], m.isFocused(pane{paneExplain, 0}))...)
		state, anchor := m.stateLinesAnchored(0, cw[2]-4)
		col3 := append(m.boxAt(pane{paneState, 0}, m.stateTitle(0), state, cw[2], c3[0], m.isFocused(pane{paneState, 0}), anchor),
			m.boxAuto(pane{paneWire, 0}, m.wireTitle(0), wire, cw[2], c3[1], m.isFocused(pane{paneWire, 0}), len(wire))...)
		return joinColumns(col1, col2, col3)
	}
	cw := split(w, 45, 55)
	stepsH := min(len(m.snaps[0].Steps)+3, h*40/100)
	lh := split(h-stepsH, 35, 65)
	rh := split(h, 62, 38)
	steps, cur := m.stepsLines(0, cw[0]-4)
	col1 := m.boxAuto(pane{paneSteps, 0}, m.stepsTitle(0), steps, cw[0], stepsH, m.isFocused(pane{paneSteps, 0}), cur)
	col1 = append(col1, m.box(pane{paneCall, 0}, m.callTitle(), m.callLines(cw[0]-4), cw[0], lh[0], m.isFocused(pane{paneCall, 0}))...)
	col1 = append(col1, m.box(pane{paneExplain, 0}, m.explainTitle(), m.explainLines(cw[0]-4), cw[0], lh[1], m.isFocused(pane{paneExplain, 0}))...)
	bw := split(cw[1], 45, 55)
	tl := m.timelineLines(bw[0] - 4)
	wire := m.wireLines(0, bw[1]-4)
	bottom := joinColumns(
		m.boxAuto(pane{paneTimeline, 0}, title(m.lang, "Timeline", "时序"), tl, bw[0], rh[1], m.isFocused(pane{paneTimeline, 0}), len(tl)),
		m.boxAuto(pane{paneWire, 0}, m.wireTitle(0), wire, bw[1], rh[1], m.isFocused(pane{paneWire, 0}), len(wire)))
	state, anchor := m.stateLinesAnchored(0, cw[1]-4)
	col2 := append(m.boxAt(pane{paneState, 0}, m.stateTitle(0), state, cw[1], rh[0], m.isFocused(pane{paneState, 0}), anchor), bottom...)
	return joinColumns(col1, col2)
}

// demoBody: server column, shared middle, client column.
func (m *model) demoBody(w, h int) []string {
	cw := split(w, 31, 38, 31)
	side := func(i int) []string {
		lines, cur := m.stepsLines(i, cw[i*2]-4)
		sh := min(len(m.snaps[i].Steps)+3, h*45/100)
		state, anchor := m.stateLinesAnchored(i, cw[i*2]-4)
		state = append(state, "")
		state = append(state, m.wireLines(i, cw[i*2]-4)...)
		return append(m.boxAuto(pane{paneSteps, i}, m.stepsTitle(i), lines, cw[i*2], sh, m.isFocused(pane{paneSteps, i}), cur),
			m.boxAt(pane{paneState, i}, m.stateTitle(i), state, cw[i*2], h-sh, m.isFocused(pane{paneState, i}), anchor)...)
	}
	mh := split(h, 30, 45, 25)
	tl := m.timelineLines(cw[1] - 4)
	mid := m.box(pane{paneCall, 0}, m.callTitle(), m.callLines(cw[1]-4), cw[1], mh[0], m.isFocused(pane{paneCall, 0}))
	mid = append(mid, m.box(pane{paneExplain, 0}, m.explainTitle(), m.explainLines(cw[1]-4), cw[1], mh[1], m.isFocused(pane{paneExplain, 0}))...)
	mid = append(mid, m.boxAuto(pane{paneTimeline, 0}, title(m.lang, "Timeline", "时序"), tl, cw[1], mh[2], m.isFocused(pane{paneTimeline, 0}), len(tl))...)
	return joinColumns(side(0), mid, side(1))
}
