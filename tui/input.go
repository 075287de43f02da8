package tui

import "github.com/rdmatour/rdmatour/tui/pane"

// input is what the panes draw from, read off the model once per Update
// (sync): the panes see this and nothing else of the model.
func (m *model) input() *pane.Input {
	cs, ci := m.curStep()
	ns, ni, more := m.nextTurn()
	return &pane.Input{
		Styles:    m.styles,
		Lang:      m.lang,
		Demo:      m.demo,
		Narrow:    m.narrow(),
		Snaps:     m.snaps,
		Tours:     m.tours,
		Cur:       pane.At{Side: cs, Idx: ci},
		Next:      pane.At{Side: ns, Idx: ni},
		HasNext:   more,
		Running:   m.run.on,
		Run:       pane.At{Side: m.run.side, Idx: m.run.idx},
		Spinner:   m.run.spin.View(),
		Wait:      m.run.wait,
		OnPeer:    m.run.onPeer,
		Look:      pane.Look{On: m.look.on, Side: m.look.side, Idx: m.look.idx},
		StepAt:    m.run.stepAt,
		AllDone:   m.allDone(),
		Config:    m.tourConfig(),
		Replaying: m.replaying(),
		Page:      m.page,
		Edits:     m.editsInput(),
	}
}
