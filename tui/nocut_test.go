package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/verbs"
)

// TestNothingCutSilently: at every layout the live state, the wire and
// the timeline draw no line wider than their pane (so the frame never
// has to cut one), and the values a learner reported cut are whole on
// one line: an MR's rkey 0x13e, a RETH's va and rkey, remote_info's addr.
func TestNothingCutSilently(t *testing.T) {
	for _, tt := range []struct {
		demo bool
		w, h int
	}{{false, 160, 50}, {false, 120, 40}, {false, 100, 30}, {false, 80, 24}, {true, 120, 40}, {true, 100, 30}, {true, 80, 24}} {
		for _, lang := range []text.Lang{text.EN, text.ZH} {
			name := fmt.Sprintf("demo=%v/%s/%dx%d", tt.demo, lang, tt.w, tt.h)
			m := goldenModel(t, tt.demo, lang, tt.w, tt.h)
			for i := range m.snaps {
				s := &m.snaps[i]
				s.MRs[0].RKey, s.MRs[0].LKey = 0x13e, 0x13e
				s.Packets[0].RETH = &verbs.RETH{VA: 0x7fad700f9000, RKey: 0x13e, DMALen: 43}
				s.Timeline = append(s.Timeline, steps.TimelineEntry{FromServer: true, Label: "REP",
					Detail: "remote_info: addr=0x7fb94a2c1000 rkey=0x13e"})
				s.CQ.Completions = append(s.CQ.Completions, verbs.WC{WRID: 300, Status: verbs.WCRemAccessErr})
			}
			for _, p := range allPanes(m) {
				_, lines, _ := m.paneContent(p.slot, p.w-4, p.h-2)
				for _, l := range lines {
					if p.slot.kind != pane.Steps && termtext.Width(l) > p.w-4 {
						t.Errorf("%s: %v: a line of %d cells in %d: %q", name, p.slot, termtext.Width(l), p.w-4, ansi.Strip(l))
					}
				}
			}
			for _, want := range []string{"0x13e", "va=0x7fad700f9000", "0x7fb94a2c1000", "byte_len"} {
				if !m.onOneLine(want) {
					t.Errorf("%s: %q is not whole on any line", name, want)
				}
			}
		}
	}
}

// allPanes is every pane the learner can reach at this size: the
// layout's, and in the narrow layout every tab's.
func allPanes(m *model) []node {
	body := m.bodyHeight(len(m.bannerLines(m.scr.w)))
	var out []node
	for f := range m.focusables() {
		m.scr.focus = f
		out = append(out, m.layout(m.scr.w, body).leaves()...)
	}
	return out
}

// onOneLine says some reachable pane shows s whole on one line.
func (m *model) onOneLine(s string) bool {
	for _, p := range allPanes(m) {
		_, lines, _ := m.paneContent(p.slot, p.w-4, p.h-2)
		for _, l := range lines {
			if strings.Contains(ansi.Strip(l), s) {
				return true
			}
		}
	}
	return false
}

// TestHexdumpRowWidth: 16 bytes a row wherever the pane fits a row of
// 16 (73 cells), else 8, else 4; a row is never wider than the pane.
func TestHexdumpRowWidth(t *testing.T) {
	m := goldenModel(t, false, text.EN, 160, 50)
	b := steps.BufferState{Bytes: []byte(strings.Repeat("0123456789abcdef", 4))}
	for _, c := range []struct{ w, perRow int }{{73, 16}, {100, 16}, {72, 8}, {41, 8}, {40, 4}} {
		lines := m.hexdump(b, c.w)
		row := ansi.Strip(lines[1])
		_, ascii, _ := strings.Cut(row, "|")
		if got := len(strings.TrimSuffix(ascii, "|")); got != c.perRow {
			t.Errorf("width %d: %d bytes a row, want %d: %q", c.w, got, c.perRow, row)
		}
		for _, l := range lines {
			if termtext.Width(l) > c.w {
				t.Errorf("width %d: a line of %d cells: %q", c.w, termtext.Width(l), l)
			}
		}
	}
}
