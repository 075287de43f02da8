package tui

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
)

// fakeRoom is a roster of n attendees with no sessions behind them.
type fakeRoom struct{ rows []workshop.Row }

func newFakeRoom(n int, at time.Time) *fakeRoom {
	f := &fakeRoom{}
	phases := []workshop.Phase{workshop.PhaseConnected, workshop.PhaseLanded, workshop.PhaseFinished, workshop.PhaseFailed}
	for i := 1; i <= n; i++ {
		row := workshop.Row{N: i, Addr: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}), uint16(40000+i)),
			Backend: "sim", QPN: uint32(0x100 + i), QPState: "IBV_QPS_RTS", Phase: phases[i%4], Observed: text.Same("connected"),
			Last: at.Add(-time.Duration(i) * time.Second)}
		if row.Phase == workshop.PhaseLanded || row.Phase == workshop.PhaseFinished {
			row.Landed, row.Message = true, privdata.PeerBytes(fmt.Sprintf("hello %d \x1b[31m", i))
		}
		f.rows = append(f.rows, row)
	}
	return f
}

func (f *fakeRoom) Roster() []workshop.Row          { return f.rows }
func (f *fakeRoom) Attendees() []*workshop.Attendee { return nil }
func (f *fakeRoom) Addrs() []string                 { return []string{"sim 0.0.0.0:7471"} }
func (f *fakeRoom) Counts() workshop.Counts {
	var c workshop.Counts
	for _, r := range f.rows {
		switch r.Phase {
		case workshop.PhaseFinished:
			c.Finished++
		case workshop.PhaseFailed:
			c.Failed++
		default:
			c.Connected++
		}
	}
	return c
}

func workshopAt(t testing.TB, n, w, h int) *workshopModel {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	m := newWorkshopModel(newFakeRoom(n, at), text.EN, true, func() time.Time { return at })
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

func TestRosterScreen(t *testing.T) {
	m := workshopAt(t, 50, 120, 40)
	screen := m.View().Content
	lines := strings.Split(screen, "\n")
	if len(lines) != 40 {
		t.Fatalf("%d lines, want 40", len(lines))
	}
	for _, want := range []string{"13 done", "25 running", "0 stuck", "12 failed", "10.0.0.1:40001", "0x101", "RTS", `"hello 1 \e[31m"`} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "\x1b") {
		t.Errorf("a raw escape byte from an attendee's message reached the screen")
	}
	for i, l := range lines {
		if termtext.Width(l) != 120 {
			t.Errorf("line %d is %d cells wide, want 120: %q", i, termtext.Width(l), l)
		}
	}
}

func TestRosterSelectionScrolls(t *testing.T) {
	m := workshopAt(t, 50, 120, 40)
	visible := m.roster.height
	if visible <= 0 || visible >= 50 {
		t.Fatalf("%d rows visible, want some but not all 50", visible)
	}
	for _, tt := range []struct {
		key     tea.KeyPressMsg
		sel     int
		showing string
	}{
		{tea.KeyPressMsg{Code: tea.KeyEnd}, 49, "10.0.0.50:40050"},
		{tea.KeyPressMsg{Code: tea.KeyUp}, 48, "10.0.0.49:40049"},
		{tea.KeyPressMsg{Code: tea.KeyHome}, 0, "10.0.0.1:40001"},
		{tea.KeyPressMsg{Code: tea.KeyPgDown}, visible - 1, fmt.Sprintf("10.0.0.%d:", visible)},
		{tea.KeyPressMsg{Code: tea.KeyDown}, visible, fmt.Sprintf("10.0.0.%d:", visible+1)},
	} {
		m.Update(tt.key)
		if m.roster.sel != tt.sel {
			t.Errorf("after %v: selected %d, want %d", tt.key, m.roster.sel, tt.sel)
		}
		if s := m.View().Content; !strings.Contains(s, tt.showing) {
			t.Errorf("after %v the selected row %q is not on screen:\n%s", tt.key, tt.showing, s)
		}
	}
}

func TestRosterViewIsPure(t *testing.T) {
	m := workshopAt(t, 50, 120, 40)
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	if a, b := m.View().Content, m.View().Content; a != b {
		t.Fatal("two Views of the same model differ")
	}
}

// BenchmarkRosterView is one frame of the workshop screen at 120×40 with
// 50 attendees.
func BenchmarkRosterView(b *testing.B) {
	m := workshopAt(b, 50, 120, 40)
	for b.Loop() {
		if m.View().Content == "" {
			b.Fatal("no frame")
		}
	}
}
