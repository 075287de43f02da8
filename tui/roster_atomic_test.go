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

// TestRosterAtomicRoomShowsCounter: in an atomic room the header shows
// the shared counter rising as attendees add to it, and each row what
// that attendee's FETCH_AND_ADD found, while the attendees are still in
// the middle of their tours.
func TestRosterAtomicRoomShowsCounter(t *testing.T) {
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), IdleLimit: 10 * time.Second, Tour: steps.TourAtomic})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	m := newWorkshopModel(r, text.EN, true, time.Now)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30}) // the projector (ux review item 1: the counter was cut)
	for i, want := range []string{"shared counter 42", "shared counter 44"} {
		s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Server: r.ListenAddr(0),
			Tour: steps.TourAtomic, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for s.Steps()[s.Next()].ID != "post-cmp-swap" {
			if _, err := s.RunNext(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		m.Update(tickMsg{})
		if i == 1 {
			m.Update(tea.KeyPressMsg{Code: tea.KeyDown}) // the selected row's line shows it whole
		}
		screen := m.View().Content
		found := "FETCH_ADD +2 → old 4" + string(rune('0'+2*i))
		if !strings.Contains(screen, want) || !strings.Contains(screen, found) {
			t.Errorf("after attendee %d's add the screen lacks %q or %q:\n%s", i+1, want, found, screen)
		}
	}
	if lines := strings.Split(m.View().Content, "\n"); len(lines) != 30 || !strings.HasPrefix(lines[1], "shared counter 44") {
		t.Errorf("the counter is not on a line of its own under the header, or the screen is not 30 lines:\n%s", strings.Join(lines, "\n"))
	}
	m.Update(tea.KeyPressMsg{Code: 'l'})
	if screen := m.View().Content; !strings.Contains(screen, "共享计数器 44") {
		t.Errorf("the Chinese header lacks the counter:\n%s", screen)
	}
}
