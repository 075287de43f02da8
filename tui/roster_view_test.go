package tui

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestRosterHelpKey: ? lists every key of the workshop screen, and any
// key closes it without doing anything else.
func TestRosterHelpKey(t *testing.T) {
	m := workshopAt(t, 8, 100, 30)
	m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	help := m.View().Content
	for _, k := range workshopKeys {
		if !strings.Contains(help, k.keys) || !strings.Contains(help, strings.Fields(k.what.EN)[0]) {
			t.Errorf("help lacks %q: %s", k.keys, help)
		}
	}
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd != nil || m.confirming {
		t.Fatal("q in the help did more than close it")
	}
	if s := m.View().Content; !strings.Contains(s, "Roster") {
		t.Errorf("the help did not close:\n%s", s)
	}
}

// TestRosterTabAndZoom: Tab walks the four panes and back to the roster;
// z on the roster shows as many rows as the screen holds (at 100×30 a
// room of 50 gets more than twice the rows), Esc goes back.
func TestRosterTabAndZoom(t *testing.T) {
	m := workshopAt(t, 50, 100, 30)
	rowsShown := func() int { return strings.Count(m.View().Content, "10.0.0.") }
	before := rowsShown()
	order := []rosterPane{paneState, paneTimeline, paneWire, paneRoster}
	for _, want := range order {
		m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
		if m.view.focus != want {
			t.Fatalf("tab: focus %d, want %d", m.view.focus, want)
		}
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if m.view.focus != paneWire {
		t.Fatalf("shift+tab from the roster: focus %d, want the wire", m.view.focus)
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	m.Update(tea.KeyPressMsg{Code: 'z', Text: "z"})
	zoomed := rowsShown()
	if zoomed <= 2*before {
		t.Errorf("z on the roster shows %d rows, %d before: want the whole screen's worth", zoomed, before)
	}
	lines := strings.Split(m.View().Content, "\n")
	if len(lines) != 30 {
		t.Errorf("zoomed screen has %d lines, want 30", len(lines))
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if got := rowsShown(); got != before {
		t.Errorf("esc: %d rows shown, want %d as before the zoom", got, before)
	}
}

// TestRosterZoomAttendeePane: Tab to the timeline and z shows the
// selected attendee's timeline on the whole screen, as wide as it is.
func TestRosterZoomAttendeePane(t *testing.T) {
	r := liveRoom(t, 2)
	m := newWorkshopModel(r, text.EN, true, time.Now)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	m.Update(tea.KeyPressMsg{Code: 'z', Text: "z"})
	s := m.View().Content
	lines := strings.Split(s, "\n")
	if len(lines) != 30 || !strings.Contains(lines[0], "#1 · Timeline") || strings.Contains(s, "Roster") || strings.Contains(s, "Live state") {
		t.Fatalf("z on the timeline: want it alone on 30 lines:\n%s", s)
	}
	if !strings.Contains(s, "REQ") || !strings.Contains(s, "DREQ") {
		t.Errorf("the zoomed timeline lacks the connection's messages:\n%s", s)
	}
}

// TestRosterSRQHeader: an --srq room's header shows the SRQ's fill level
// and, under it, what its shared PD allows, within a projector's 100×30.
func TestRosterSRQHeader(t *testing.T) {
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), SRQ: true, MaxAttendees: 8, IdleLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Server: r.ListenAddr(0), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := s.RunNext(context.Background()); err != nil {
			break
		}
	}
	s.Close()
	m := newWorkshopModel(r, text.EN, true, time.Now)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	screen := m.View().Content
	lines := strings.Split(screen, "\n")
	if len(lines) != 30 || !strings.Contains(screen, "SRQ sim 7/8 RECVs posted, limit 2, 0 limit event(s)") || !strings.Contains(screen, "⚠ one PD for all") {
		t.Errorf("the SRQ room's header:\n%s", screen)
	}
}
