package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// TestPresenterShowsCallAndBothStates: at a projector's 100×30 the demo
// shows the C call, the explanation, both sides' live state and the
// timeline at once, rather than one tab.
func TestPresenterShowsCallAndBothStates(t *testing.T) {
	m := goldenModel(t, true, text.EN, 100, 30)
	sc := ansi.Strip(m.render())
	checkFrame(t, "presenter", m.render(), 100, 30)
	for _, want := range []string{"client · C call", "Explanation", "server · Live state", "client · Live state", "Timeline", "Data buffer", "|hello fr|"} {
		if !strings.Contains(sc, want) {
			t.Errorf("presenter layout: no %q on screen:\n%s", want, sc)
		}
	}
	if strings.Contains(sc, "[Explain]") {
		t.Error("the presenter layout still shows the narrow layout's tab bar")
	}
}

// TestZoomKeys: z shows the focused pane alone across the whole body;
// z again, or esc, brings the layout back.
func TestZoomKeys(t *testing.T) {
	m := goldenModel(t, true, text.EN, 100, 30)
	for m.focused() != (slot{pane.State, 0}) {
		press(t, m, "tab")
	}
	for _, unzoom := range []string{"z", "esc"} {
		press(t, m, "z")
		sc := ansi.Strip(m.render())
		checkFrame(t, "zoomed", m.render(), 100, 30)
		lines := strings.Split(sc, "\n")
		if !strings.Contains(lines[1], "server · Live state") || !strings.Contains(lines[1], "z/esc: back") {
			t.Fatalf("z: the first pane line is %q, want the server's live state, zoomed", lines[1])
		}
		if strings.Contains(sc, "C call") || strings.Contains(sc, "Timeline") {
			t.Errorf("z: other panes still on screen:\n%s", sc)
		}
		// The zoomed pane is as wide as the screen: its frame spans it.
		if !strings.HasPrefix(lines[1], "╭") || !strings.HasSuffix(lines[1], "╮") || termtext.Width(lines[1]) != 100 {
			t.Errorf("z: the pane is not the full width: %q", lines[1])
		}
		press(t, m, unzoom)
		sc = ansi.Strip(m.render())
		if !strings.Contains(sc, "C call") || !strings.Contains(sc, "client · Live state") {
			t.Errorf("%s: the layout did not come back:\n%s", unzoom, sc)
		}
	}
}
