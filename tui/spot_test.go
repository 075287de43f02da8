package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestSpotlightAt80x24: in the narrow demo layout, where one tab shows
// at a time, the client's RDMA WRITE brings the server's data buffer
// forward (the bytes landing there are the point, not the client's own
// source buffer) and says so; the next step gives the learner's tab
// back; polling the completion brings the client's CQ forward; a tab
// pressed by the learner ends the note and keeps their pane.
func TestSpotlightAt80x24(t *testing.T) {
	m := sharedDemo(t, "", 80, 24)
	runUntilStep(t, m, 1, "post-write")
	landed := func() bool {
		return m.snaps[0].Data.LastChange().After(m.run.stepAt)
	}
	for deadline := time.Now().Add(5 * time.Second); !landed(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the WRITE never landed in the server's buffer")
		}
		m.Update(tickMsg{}) // the refresh tick samples the buffers
	}
	m.Update(tickMsg{})
	screen := ansi.Strip(m.render())
	if m.tab() != tabState || m.scr.side != 0 {
		t.Fatalf("after the WRITE: tab %d side %d, want the server's State tab:\n%s", m.tab(), m.scr.side, screen)
	}
	for _, want := range []string{"Shown: the server's data buffer, where bytes just landed", "server · Live state", "|hello from rdmat|"} {
		if !strings.Contains(screen, want) {
			t.Errorf("after the WRITE: no %q on screen:\n%s", want, screen)
		}
	}
	checkFrame(t, "spotlight", m.render(), 80, 24)

	press(t, m, "enter") // poll-write: the client's completion
	screen = ansi.Strip(m.render())
	if m.tab() != tabState || m.scr.side != 1 || !strings.Contains(screen, "Shown: the client's CQ, where a completion just arrived") {
		t.Errorf("after poll-write: tab %d side %d, want the client's CQ forward:\n%s", m.tab(), m.scr.side, screen)
	}
	press(t, m, "tab")
	if strings.Contains(ansi.Strip(m.render()), "Shown:") || m.tab() != tabTimeline {
		t.Errorf("after tab: the note stays or the tab did not move (tab %d)", m.tab())
	}
	press(t, m, "enter") // the SEND: nothing lands on the client's side
	if m.tab() != tabTimeline {
		t.Errorf("the learner's own tab was taken back: tab %d", m.tab())
	}
}

// TestSpotlightGivesTheTabBack: a step that brought a pane forward gives
// the tab back at the next step when the learner did not move.
func TestSpotlightGivesTheTabBack(t *testing.T) {
	m := sharedDemo(t, "", 80, 24)
	runUntilStep(t, m, 1, string(steps.IDPollWrite))
	if m.tab() != tabState {
		t.Fatalf("poll-write did not bring the CQ forward: tab %d", m.tab())
	}
	press(t, m, "enter")
	if m.tab() != tabExplain {
		t.Errorf("the next step did not give the Explain tab back: tab %d", m.tab())
	}
}

// TestKeyNoteKeepsTheLayout: the note for a key pressed while a step
// waits replaces the key help without changing the panes' height.
func TestKeyNoteKeepsTheLayout(t *testing.T) {
	m := goldenModel(t, false, text.EN, 120, 40)
	before := m.bodyHeight(0)
	m.run.on, m.run.keyWhileWaiting = true, true
	if got := m.bodyHeight(0); got != before {
		t.Errorf("the key note changed the body from %d to %d lines", before, got)
	}
	f := m.footer(120)
	if !strings.Contains(strings.Join(f, "\n"), "⏳") || strings.TrimSpace(f[len(f)-1]) != "" {
		t.Errorf("want a one-line key note, padded to the key help's lines: %q", f)
	}
}
