package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

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

// TestNothingCutSilentlyChrome: in every scene (a step of every tour and
// track, a lesson's expected error, the end) at 80×24, 100×30 and 120×40
// in English, Chinese and both, the frame around the panes cuts nothing
// silently: the header keeps a blank before the progress ("EN10/18" was
// the collision), the lesson line wraps whole, every key of the footer is whole, the banner is whole
// on screen or says how much more there is and the help screen shows it
// whole, every pane's title can be read whole (zoomed: z), and the steps
// pane gives the current step's title whole.
func TestNothingCutSilentlyChrome(t *testing.T) {
	for _, sc := range scenes {
		for _, sz := range sceneSizes {
			for _, lang := range sceneLangs {
				name := fmt.Sprintf("%s/%s/%dx%d", sc.name, lang, sz[0], sz[1])
				m := sceneModel(t, sc, lang, sz[0], sz[1])
				checkChrome(t, name, m)
			}
		}
	}
}

var progressAfterBlank = regexp.MustCompile(`\s\d+/\d+\s*$`)

func checkChrome(t *testing.T, name string, m *model) {
	t.Helper()
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	if !progressAfterBlank.MatchString(lines[0]) {
		t.Errorf("%s: the header runs into the progress: %q", name, lines[0])
	}
	footer := squash(strings.Join(lines[len(lines)-len(m.footer(m.scr.w)):], ""))
	for _, b := range m.keys.ShortHelp() {
		if b.Enabled() && !strings.Contains(footer, squash(b.Help().Key+b.Help().Desc)) {
			t.Errorf("%s: the footer has no whole %q %q: %q", name, b.Help().Key, b.Help().Desc, footer)
		}
	}
	screen := squash(strings.Join(lines, ""))
	if m.page.Lesson != "" && !strings.Contains(screen, squash(ansi.Strip(m.lessonLine(m.scr.w)))) {
		t.Errorf("%s: the lesson line is cut: %q", name, ansi.Strip(m.lessonLine(m.scr.w)))
	}
	if banner := squash(ansi.Strip(strings.Join(m.banner(m.scr.w), ""))); !strings.Contains(screen, banner) {
		m.scr.showHelp = true
		help := squash(ansi.Strip(m.render()))
		m.scr.showHelp = false
		if !strings.Contains(screen, squash("more lines: press ?")) && !strings.Contains(screen, squash("按 ? 查看完整信息")) {
			t.Errorf("%s: the banner is cut with no word of it:\n%s", name, strings.Join(lines, "\n"))
		}
		if !strings.Contains(help, banner) {
			t.Errorf("%s: the help screen does not show the whole banner", name)
		}
	}
	for f, p := range m.focusables() {
		title, _, _ := m.paneContent(p, 76, 20)
		m.scr.focus, m.scr.zoomed = f, true
		zoomed := squash(ansi.Strip(m.render()))
		m.scr.zoomed = false
		if !strings.Contains(zoomed, squash(title)) {
			t.Errorf("%s: %v: the title %q cannot be read whole, even zoomed", name, p, title)
		}
	}
	m.render()
	if side, idx, ok := m.nextTurn(); ok {
		ss := m.snaps[side].Steps[idx]
		want := ss.Title.In(m.lang)
		if m.lang == text.Both {
			want = ss.Title.EN + " · " + ss.Title.ZH
		}
		lines, top := m.stepsLines(side, 26)
		framed := pane.Frame(m.styles, "", lines, 30, 40, top, false)
		if !strings.Contains(squash(ansi.Strip(strings.Join(framed, ""))), squash(want)) {
			t.Errorf("%s: the next step's title %q is not whole in a 30-cell steps pane", name, want)
		}
	}
}

// squash drops blanks and pane borders: text wrapped across lines (or
// frames) compares equal to the same text on one line.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '│' {
			return -1
		}
		return r
	}, s)
}
