package tui

import (
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// The spotlight: the pane that matters for what just happened comes
// forward by itself and says so in one line. When bytes land in a data
// buffer (the peer's WRITE in the server's, a READ's answer in the
// client's) or a completion arrives in a CQ, the live state anchors at
// that section; in the narrow layout, where one tab shows at a time, the
// State tab of that side comes forward, and the next step gives the
// learner's tab back if they did not move on their own.

// spotlight is the section brought forward, the tab it replaced, and
// what was seen so far (so that each change comes forward once).
type spotlight struct {
	on      bool
	side    int
	section steps.Section
	from    int // the narrow layout's tab before, to give back
	moved   bool
	seen    []spotSeen
}

// spotSeen is one side's last data change and CQ length already shown.
type spotSeen struct {
	data time.Time
	cq   int
}

// noticeChanges brings forward what changed since it last looked; it
// runs after every refresh of the live snapshots. acting is the session
// whose step just ended (-1 on the refresh tick): what a step did to its
// own buffer is not news (the client fills the buffer it WRITEs from;
// its state pane anchors there anyway), the peer's bytes landing are.
// They come first; then a new completion (sec, the step's section, says
// which section of the live state it anchors at: the note names that).
func (m *model) noticeChanges(acting int, sec steps.Section) {
	sp := &m.scr.spot
	if len(sp.seen) != len(m.snaps) || m.look.on || m.replaying() {
		// The start (nothing is news), the past or a recording.
		sp.seen = make([]spotSeen, len(m.snaps))
		for i := range m.snaps {
			sp.seen[i] = seenOf(m.snaps[i])
		}
		return
	}
	data, cq := -1, -1
	for i, snap := range m.snaps {
		now, before := seenOf(snap), sp.seen[i]
		sp.seen[i] = now
		landed := now.data.After(before.data) && now.data.After(m.run.stepAt)
		if landed && i != acting && data < 0 {
			data = i
		}
		if now.cq > before.cq && cq < 0 {
			cq = i
		}
	}
	switch {
	case data >= 0:
		m.bringForward(data, steps.SectionData)
	case cq >= 0 && cq == acting && sec == steps.SectionData:
		// The completion of a step about the data (the server's
		// notification, a READ): its state anchors at the buffer.
		m.bringForward(cq, steps.SectionData)
	case cq >= 0:
		m.bringForward(cq, steps.SectionCQ)
	}
}

func seenOf(s steps.Snapshot) spotSeen {
	var out spotSeen
	if t := s.Data.LastChange(); t.After(out.data) {
		out.data = t
	}
	if s.CQ != nil {
		out.cq = len(s.CQ.Completions)
	}
	return out
}

// bringForward shows, in the narrow layout, side's State tab (its live
// state anchors at sec by itself: fresh bytes, or the step's section).
func (m *model) bringForward(side int, sec steps.Section) {
	sp := &m.scr.spot
	if !sp.on {
		sp.from = m.scr.focus
	}
	sp.on, sp.side, sp.section, sp.moved = true, side, sec, false
	m.paneAt(slot{pane.State, side}).Follow() // to its anchor
	if m.narrow() {
		m.scr.focus = tabState
		if m.demo {
			m.scr.side = side
		}
	}
}

// spotNote is the line that says what came forward ("" when nothing
// did, or the learner has since moved on).
func (m *model) spotNote() string {
	sp := m.scr.spot
	if !sp.on || sp.moved || !m.narrow() {
		return ""
	}
	who := m.snaps[sp.side].Role.String()
	if sp.section == steps.SectionData {
		return "▸ " + text.Text{EN: "Shown: the " + who + "'s data buffer, where bytes just landed (tab: other panes)",
			ZH: "自动切到：" + who + " 的数据 buffer，字节刚刚写到这里（tab：其他面板）"}.In(m.lang)
	}
	return "▸ " + text.Text{EN: "Shown: the " + who + "'s CQ, where a completion just arrived (tab: other panes)",
		ZH: "自动切到：" + who + " 的 CQ，刚刚来了一个完成（tab：其他面板）"}.In(m.lang)
}

// spotMoved: the learner took over (tab, s): the note goes, and the
// next step leaves their pane where it is.
func (m *model) spotMoved() { m.scr.spot.moved = true }

// spotNextStep ends the spotlight as the next step starts, giving the
// narrow layout's tab back if the learner did not move.
func (m *model) spotNextStep() {
	sp := &m.scr.spot
	if sp.on && !sp.moved && m.narrow() && m.scr.focus == tabState {
		m.scr.focus = sp.from
	}
	sp.on = false
}
