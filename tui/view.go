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
	lines = append(lines, m.lessonLines(w)...)
	banner := m.bannerLines(w)
	lines = append(lines, banner...)
	bodyH := m.bodyHeight(len(banner))
	switch {
	case m.scr.edit.form != nil:
		f := m.scr.edit.form
		lines = append(lines, pane.Frame(m.styles, f.Title(), f.View(m.styles, w-4, bodyH-2), w, bodyH, 0, true)...)
	case m.scr.lib.IsOpen():
		lines = append(lines, m.scr.lib.View(m.styles, w, bodyH)...)
	case m.scr.showHelp:
		lines = append(lines, m.scr.help.View(m.styles, w, bodyH, true)...)
	default:
		lines = append(lines, m.draw(m.layout(w, bodyH))...)
	}
	lines = append(lines, m.footer(w)...)
	return strings.Join(termtext.Block(lines, w, h), "\n")
}

// bannerLines is the banner as shown: it wraps to the lines it needs, up
// to bannerLimit, so that a long error does not push the live state
// (where the learner sees the QP go to ERR) off a small screen.
// What does not fit is not cut silently: the last line says how many
// more there are, and ? shows the whole banner (helpBanner).
func (m *model) bannerLines(w int) []string {
	banner := m.banner(w)
	if limit := m.bannerLimit(); len(banner) > limit {
		more := len(banner) - limit + 1
		note := text.Text{EN: fmt.Sprintf("… %d more lines: press ? to read the whole message", more),
			ZH: fmt.Sprintf("…… 还有 %d 行：按 ? 查看完整信息", more)}.In(m.lang)
		banner = append(banner[:limit-1:limit-1], m.styles.Bold.R(termtext.Fit(" "+note, w)))
	}
	return banner
}

// bannerLimit is how many lines the banner may take: a third of the
// body while the tour runs or after an error (the live state shows what
// went wrong; a quarter in both languages, whose banner is twice as
// long), half once the tour is complete (what it did and what to
// try next are the point then; "Tour complete" must not fall off in
// both languages at 80×24).
func (m *model) bannerLimit() int {
	switch {
	case m.in != nil && m.in.AllDone && !m.stopped():
		return max(3, m.bodyHeight(0)/2)
	case m.lang == text.Both:
		return max(3, m.bodyHeight(0)/4) // twice the text: the rest is under ?
	}
	return max(3, m.bodyHeight(0)/3)
}

// stopped says a side's tour ended in an error (its banner is the error).
func (m *model) stopped() bool {
	for i, snap := range m.snaps {
		if snap.Failed || (i < len(m.end.errs) && m.end.errs[i] != nil) {
			return true
		}
	}
	return false
}

// helpBanner is the banner's lines for the help screen when the screen
// cuts it: there it is read whole.
func (m *model) helpBanner(w int) []string {
	banner := m.banner(w)
	if len(banner) <= m.bannerLimit() {
		return nil
	}
	return append(banner, "")
}

// bodyHeight is what the header, the lesson line, a banner of n lines
// and the footer (as many lines as it wraps to) leave for the panes.
func (m *model) bodyHeight(n int) int {
	return m.scr.h - 1 - len(m.lessonLines(m.scr.w)) - len(m.footer(m.scr.w)) - n
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
	for _, lv := range headerLevels(notify != "") {
		var parts []string
		if lv.brand {
			parts = append(parts, st.Header.R("rdmatour"))
		}
		if lv.short && m.demo {
			side = text.Text{EN: "demo", ZH: "演示"}.In(m.lang)
		}
		parts = append(parts, st.Bold.R(side), m.replayMark()+m.in.BackendLabel(snap))
		if lv.notify {
			parts = append(parts, notify)
		}
		parts = append(parts, pane.LangLabel(m.lang))
		sep := "  "
		if lv.tight {
			sep = " "
		}
		left := " " + strings.Join(parts, sep)
		// At least one blank before the progress: "EN" and "10/18" must
		// not run together ("EN10/18" at 80 columns).
		if termtext.Width(left)+1 <= w-rw || lv.short {
			return termtext.Fit(left, w-rw-1) + " " + right
		}
	}
	return ""
}

// headerLevel is which parts of the header line are kept.
type headerLevel struct{ brand, notify, tight, short bool }

// headerLevels are the header's forms from the fullest, dropping the
// least important part at each: the program's name goes before the tour
// or notify mode (it says more: "tour=read"), then the mode, then the
// double spaces; a demo's side is shortened last.
func headerLevels(withNotify bool) []headerLevel {
	if withNotify {
		return []headerLevel{{brand: true, notify: true}, {notify: true}, {}, {tight: true}, {tight: true, short: true}}
	}
	return []headerLevel{{brand: true}, {brand: true, tight: true}, {tight: true, short: true}}
}

// lessonLines is the lesson line wrapped to the lines it needs (the
// summary and the learner's prediction are long at 80 columns).
func (m *model) lessonLines(w int) []string {
	if m.page.Lesson == "" {
		return nil
	}
	var out []string
	for _, l := range termtext.WrapStyled(m.lessonLine(w), w-1, "  ") {
		out = append(out, termtext.Fit(l, w))
	}
	return out
}

// lessonLine is the header's second line when a lesson runs: its name,
// title and its one-line summary, unwrapped (lessonLines wraps it).
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
	return line
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

func (m *model) isFocused(p slot) bool { return !m.scr.showHelp && m.focused() == p }
