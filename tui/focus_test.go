package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// TestEveryPaneInTheTabCycle: at every size, one side or the demo, every
// pane on screen is reached by tab, and tab then shift+tab comes back
// to where it was; in the narrow layout the C call pane above the tabs
// is in the cycle too (it was not: a long call stayed cut at 80×24), and
// the help screen says so.
func TestEveryPaneInTheTabCycle(t *testing.T) {
	for _, demo := range []bool{false, true} {
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 50}} {
			name := fmt.Sprintf("demo=%v/%dx%d", demo, sz[0], sz[1])
			m := goldenModel(t, demo, text.EN, sz[0], sz[1])
			reached := map[slot]bool{}
			for range len(m.focusables()) {
				reached[m.focused()] = true
				press(t, m, "tab")
			}
			for _, n := range m.layout(sz[0], m.bodyHeight(len(m.bannerLines(sz[0])))).leaves() {
				if !reached[n.slot] {
					t.Errorf("%s: %v is on screen but tab never reaches it", name, n.slot)
				}
			}
			if m.narrow() && !reached[slot{pane.Call, 0}] {
				t.Errorf("%s: tab never reaches the C call pane", name)
			}
			before := m.focused()
			press(t, m, "tab")
			m.Update(shiftTab())
			if m.focused() != before {
				t.Errorf("%s: tab then shift+tab went from %v to %v", name, before, m.focused())
			}
			press(t, m, "?")
			if help := squash(ansi.Strip(m.render())); !strings.Contains(help, "shift+tab") || !strings.Contains(help, squash("the C call too")) {
				t.Errorf("%s: the help screen does not say how to reach every pane:\n%s", name, help)
			}
		}
	}
}

func shiftTab() tea.KeyPressMsg { return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift} }
