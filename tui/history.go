package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// History: the learner selects a finished step ([ and ], or ↑/↓ while the
// steps pane has the focus) to see its C call, results, explanation and
// the state right after it, as each Session kept it (Session.StepSnapshot).
// A banner says which step is shown and how to get back; Esc (or Enter,
// which never runs a step from the past) returns to now. The tour keeps
// running underneath: the live snapshots are still read on every tick, a
// running step finishes and a peer's events still arrive — they show once
// the learner is back.

// lookBack is the step being looked at.
type lookBack struct {
	on        bool
	side, idx int // session index and step index
	// now are the live snapshots while the screen shows the past: the
	// header's progress stays the tour's.
	now []steps.Snapshot
}

// historyKeys are the bindings of history (in keyMap's language).
type historyKeys struct{ Earlier, Later, Now key.Binding }

func newHistoryKeys(lang text.Lang) historyKeys {
	return historyKeys{
		Earlier: key.NewBinding(key.WithKeys("["), key.WithHelp("[ ]", text.Text{EN: "look back", ZH: "回看"}.In(lang))),
		Later:   key.NewBinding(key.WithKeys("]")),
		Now:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", text.Text{EN: "now", ZH: "回到当前"}.In(lang))),
	}
}

// stepAt is one step of one side: the session index and the step index.
type stepAt struct{ side, idx int }

// finishedSteps are the steps that have finished, in the order they ran.
func (m *model) finishedSteps() []stepAt {
	var out []stepAt
	if m.demo {
		turns := m.plan[:m.planPos]
		if m.planPos < len(m.plan) { // a failed turn does not advance planPos
			turns = m.plan[:m.planPos+1]
		}
		for _, t := range turns {
			at := stepAt{sideIndex(t.Side), t.Index}
			if _, ok := m.sessions[at.side].StepSnapshot(at.idx); ok {
				out = append(out, at)
			}
		}
		return out
	}
	for i := range m.tours[0] {
		if _, ok := m.sessions[0].StepSnapshot(i); ok {
			out = append(out, stepAt{0, i})
		}
	}
	return out
}

func sideIndex(r steps.Role) int {
	if r == steps.Client {
		return 1
	}
	return 0
}

// historyKey handles the keys of history; it reports whether msg was one.
func (m *model) historyKey(msg tea.KeyPressMsg) bool {
	hk := m.keys.History
	onSteps := m.focused().kind == pane.Steps
	switch {
	case key.Matches(msg, hk.Earlier), onSteps && key.Matches(msg, m.keys.Up):
		m.moveHistory(-1)
	case key.Matches(msg, hk.Later), onSteps && key.Matches(msg, m.keys.Down):
		m.moveHistory(+1)
	case m.look.on && (key.Matches(msg, hk.Now) || key.Matches(msg, m.keys.Next)):
		// Enter while looking back returns to now first: a step from
		// the past cannot be run again, and the next one should be run
		// with the present state in view.
		m.look = lookBack{}
		m.refresh()
	default:
		return false
	}
	return true
}

// moveHistory selects the finished step d steps earlier (d < 0) or later
// than the one shown (from now: the step the call pane shows); moving
// later than the last finished step is now.
func (m *model) moveHistory(d int) {
	done := m.finishedSteps()
	now := m.nowStep()
	shown := stepAt{m.look.side, m.look.idx}
	if !m.look.on {
		shown = now
	}
	pos := len(done)
	for i, at := range done {
		if at == shown {
			pos = i
		}
	}
	if !m.look.on && pos == len(done) && d > 0 {
		return // now, and nothing later
	}
	pos += d
	// The step the present shows is not history: moving onto it is now.
	if len(done) == 0 || pos >= len(done) || (pos == len(done)-1 && done[pos] == now) {
		m.look = lookBack{}
	} else {
		at := done[max(pos, 0)]
		m.look = lookBack{on: true, side: at.side, idx: at.idx}
		if m.demo {
			m.scr.side = at.side
		}
	}
	m.paneAt(slot{pane.Explain, 0}).Follow()
	m.paneAt(slot{pane.Call, 0}).Follow()
	m.refresh()
}

// nowStep is the step the screen shows when not looking back.
func (m *model) nowStep() stepAt {
	saved := m.look
	m.look.on = false
	side, idx := m.curStep()
	m.look = saved
	return stepAt{side, idx}
}

// applyHistory replaces the live snapshots with the ones kept right after
// the selected step: in the demo, each side as it was at that moment (its
// last step run by then in the plan's order).
func (m *model) applyHistory() {
	if !m.look.on {
		return
	}
	m.look.now = append(m.look.now[:0], m.snaps...)
	if !m.demo {
		if snap, ok := m.sessions[0].StepSnapshot(m.look.idx); ok {
			m.snaps[0] = snap
		}
		return
	}
	last := [2]int{-1, -1}
	for _, at := range m.finishedSteps() {
		last[at.side] = at.idx
		if at == (stepAt{m.look.side, m.look.idx}) {
			break
		}
	}
	for side, idx := range last {
		if snap, ok := m.sessions[side].StepSnapshot(idx); ok {
			m.snaps[side] = snap
		} else {
			m.snaps[side] = beforeFirstStep(m.snaps[side])
		}
	}
	// The other side as it was right after the selected step (the
	// client's WRITE changed the server's buffer), when it was kept; its
	// progress is still its own last step's.
	if peer, ok := m.sessions[m.look.side].PeerSnapshot(m.look.idx); ok {
		other := 1 - m.look.side
		m.snaps[other] = withProgressOf(peer, m.snaps[other])
	}
}

// withProgressOf is the state peer with the tour progress of own (a
// recorded peer state has none), and own's timeline and packets when peer
// has none (a recording keeps them once, on the side's own lines).
func withProgressOf(peer, own steps.Snapshot) steps.Snapshot {
	peer.Steps, peer.Next, peer.Running = own.Steps, own.Next, own.Running
	peer.Done, peer.Failed, peer.Err = own.Done, own.Failed, own.Err
	if peer.Timeline == nil {
		peer.Timeline = own.Timeline
	}
	if peer.Packets == nil {
		peer.Packets = own.Packets
	}
	return peer
}

// replayPeer: a replayed side's state is the one recorded after its own
// last step, so in a replayed demo the other side of the last step shows
// as recorded right after that step (the server's buffer with the
// client's WRITE in it), as it showed live.
func (m *model) replayPeer() {
	if !m.demo || !m.sessions[0].Replaying() {
		return
	}
	done := m.finishedSteps()
	if len(done) == 0 {
		return
	}
	last := done[len(done)-1]
	if peer, ok := m.sessions[last.side].PeerSnapshot(last.idx); ok {
		other := 1 - last.side
		m.snaps[other] = withProgressOf(peer, m.snaps[other])
	}
}

// liveSnap is side's live snapshot, also while looking back.
func (m *model) liveSnap(side int) steps.Snapshot {
	if m.look.on && side < len(m.look.now) {
		return m.look.now[side]
	}
	return m.snaps[side]
}

// beforeFirstStep is a side as it was before it ran anything: its tour,
// all pending, and no resources.
func beforeFirstStep(live steps.Snapshot) steps.Snapshot {
	s := steps.Snapshot{Role: live.Role, Notify: live.Notify, Lesson: live.Lesson, Track: live.Track, Tour: live.Tour,
		LessonTitle: live.LessonTitle, Backend: live.Backend, Simulated: live.Simulated, Why: live.Why, Wire: live.Wire}
	for _, ss := range live.Steps {
		s.Steps = append(s.Steps, steps.StepStatus{ID: ss.ID, Title: ss.Title, Call: ss.Call})
	}
	return s
}

// historyBanner is the marker shown while looking back.
func (m *model) historyBanner(w int) []string {
	if !m.look.on {
		return nil
	}
	n := m.look.idx + 1
	en := fmt.Sprintf("looking at step %d — press Esc for now ([ ] earlier/later)", n)
	zh := fmt.Sprintf("正在回看第 %d 步 —— 按 Esc 回到当前（[ ] 上一步/下一步）", n)
	if m.demo {
		who := m.snaps[m.look.side].Role.String()
		en = fmt.Sprintf("looking at %s step %d — press Esc for now ([ ] earlier/later)", who, n)
		zh = fmt.Sprintf("正在回看 %s 第 %d 步 —— 按 Esc 回到当前（[ ] 上一步/下一步）", who, n)
	}
	switch m.lang {
	case text.ZH:
		return bannerLine(m.styles.Expected, "◆ ", zh, w)
	case text.Both:
		return append(bannerLine(m.styles.Expected, "◆ ", en, w), bannerLine(m.styles.Expected, "  ", zh, w)...)
	}
	return bannerLine(m.styles.Expected, "◆ ", en, w)
}

// replaying says the sessions play a recording: nothing is called,
// opened or released.
func (m *model) replaying() bool { return len(m.sessions) > 0 && m.sessions[0].Replaying() }

// replayKeys words the keys for a replay: q quits without tearing
// anything down (nothing was set up), Enter shows the next recorded step.
func (m *model) replayKeys() {
	if !m.replaying() {
		return
	}
	m.keys.Quit.SetHelp("q", text.Text{EN: "quit", ZH: "退出"}.In(m.lang))
	m.keys.Next.SetHelp("enter/space/n", text.Text{EN: "next recorded step", ZH: "下一个录制的步骤"}.In(m.lang))
}

// replayMark labels a replayed recording in the header: no device is
// open and no peer is there, whatever the recorded backend says.
func (m *model) replayMark() string {
	if len(m.sessions) == 0 || !m.sessions[0].Replaying() {
		return ""
	}
	return m.styles.Expected.R(text.Text{EN: "REPLAY", ZH: "回放"}.In(m.lang)) + " "
}
