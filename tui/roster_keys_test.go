package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestRosterQuitAsksWithAttendeesIn: q in a room with attendees asks
// first; another key goes back, a second q ends it.
func TestRosterQuitAsksWithAttendeesIn(t *testing.T) {
	m := workshopAt(t, 8, 120, 40)
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd != nil {
		t.Fatalf("q with attendees in the room ended it at once")
	}
	if s := m.View().Content; !strings.Contains(s, "attendees are still in the room: q again ends the workshop") {
		t.Errorf("q did not ask:\n%s", s)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd != nil {
		t.Fatalf("after going back, q ended the room without asking again")
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd == nil {
		t.Fatal("the second q did not end the workshop")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Errorf("the second q returned %T, want tea.QuitMsg", cmd())
	}
}

// TestRosterNeedFirst: o puts the stuck, then the failed, on top.
func TestRosterNeedFirst(t *testing.T) {
	m := workshopAt(t, 12, 120, 40)
	room := m.src.(*fakeRoom)
	room.rows[6].Stuck = true // #7
	m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	rows := m.roster.rows
	if rows[0].N != 7 || !rows[0].Stuck {
		t.Fatalf("first row #%d, want the stuck #7", rows[0].N)
	}
	for i, r := range rows[1:3] { // #3 and #11 (#7, also failed, is stuck)
		if need(r) != 1 {
			t.Errorf("row %d (#%d) is not a failed one: %v", i+1, r.N, r.Phase)
		}
	}
	m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	if m.roster.rows[0].N != 1 {
		t.Errorf("o again: first row #%d, want #1 (arrival order)", m.roster.rows[0].N)
	}
}

// TestRosterSaveWithoutResults: s without --results says how to get them.
func TestRosterSaveWithoutResults(t *testing.T) {
	m := workshopAt(t, 2, 120, 40)
	m.Update(tea.KeyPressMsg{Code: 's', Text: "s"})
	if s := m.View().Content; !strings.Contains(s, "no --results FILE was given") {
		t.Errorf("s said nothing useful:\n%s", s)
	}
}

// BenchmarkRosterView200 is the workshop screen's frame with 200
// attendees at 120×40 (issue 23 asks ≤ 1 ms).
func BenchmarkRosterView200(b *testing.B) {
	m := workshopAt(b, 200, 120, 40)
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkRosterRefresh200 is one tick's re-read and frame with 200
// attendees, needing-first order on.
func BenchmarkRosterRefresh200(b *testing.B) {
	m := workshopAt(b, 200, 120, 40)
	m.roster.needFirst = true
	for b.Loop() {
		m.Update(tickMsg{})
		_ = m.View()
	}
}
