package tui

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// liveRoom is a workshop room on the simulated NIC that n clients have
// been through (whole tours, in parallel).
func liveRoom(t testing.TB, n int) *workshop.Room {
	t.Helper()
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), IdleLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Server: r.ListenAddr(0),
				Message: fmt.Sprintf("attendee %d", i), Timeout: 10 * time.Second})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			for {
				if _, err := s.RunNext(context.Background()); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for r.Counts().Finished < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	return r
}

// TestRosterLiveRoom: the screen over a real room shows the selected
// attendee's own side of the connection in the usual panes.
func TestRosterLiveRoom(t *testing.T) {
	r := liveRoom(t, 5)
	m := newWorkshopModel(r, text.EN, true, time.Now)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	row := m.roster.rows[m.roster.sel]
	s := m.View().Content
	for _, want := range []string{"#2 · Live state", "#2 · Timeline", "#2 · Wire", "REP", "5 done", `"attendee `} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if m.detailN != row.N || m.detail == nil {
		t.Fatalf("detail shows #%d, want #%d", m.detailN, row.N)
	}
}

// BenchmarkRosterViewLive is one frame at 120×40 over a room 50 attendees
// have been through, one of them selected (its state, timeline and wire
// drawn), in colour.
func BenchmarkRosterViewLive(b *testing.B) {
	r := liveRoom(b, 50)
	m := newWorkshopModel(r, text.EN, false, time.Now)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	for b.Loop() {
		if m.View().Content == "" {
			b.Fatal("no frame")
		}
	}
}

// TestRosterSpotlight: Enter on a row shows that attendee's call, state,
// timeline and wire on the whole screen; Esc goes back to the roster.
func TestRosterSpotlight(t *testing.T) {
	r := liveRoom(t, 3)
	m := newWorkshopModel(r, text.EN, true, time.Now)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	s := m.View().Content
	for _, want := range []string{"#2 · Live state", "#2 · Timeline", "#2 · Wire", "esc back to the roster", "/"} {
		if !strings.Contains(s, want) {
			t.Errorf("the spotlight lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Roster") {
		t.Errorf("the spotlight still shows the roster:\n%s", s)
	}
	if lines := strings.Split(s, "\n"); len(lines) != 30 {
		t.Errorf("%d lines, want 30", len(lines))
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if s := m.View().Content; !strings.Contains(s, "Roster") {
		t.Errorf("Esc did not go back to the roster:\n%s", s)
	}
}
