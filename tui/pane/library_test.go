package pane

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

func libKey(k string) tea.KeyPressMsg {
	codes := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "down": tea.KeyDown, "up": tea.KeyUp, "backspace": tea.KeyBackspace}
	if c, ok := codes[k]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if k == "shift+tab" {
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// newTestLibrary is a library over the real pages, opened, at 80×20.
func newTestLibrary(t *testing.T, lang text.Lang) (*Library, Styles) {
	t.Helper()
	st := NewStyles(true)
	l := NewLibrary(docs.Page, termtext.NewMarkdown(st.Page()), []string{"create-event-channel", "create-id", "accept"})
	l.OpenPages("accept")
	l.Resize(st, 80, 20, lang, "")
	return l, st
}

// keys sends each key (a word each, or the letters of a "type:" word).
func keys(l *Library, st Styles, lang text.Lang, ks ...string) LibraryEvent {
	var ev LibraryEvent
	for _, k := range ks {
		if q, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range q {
				ev = l.Update(libKey(string(r)))
				l.Resize(st, 80, 20, lang, "")
			}
			continue
		}
		ev = l.Update(libKey(k))
		l.Resize(st, 80, 20, lang, "")
	}
	return ev
}

func screenOf(l *Library, st Styles) string {
	return ansi.Strip(strings.Join(append(l.View(st, 80, 20), l.KeysLine(st, 80)), "\n"))
}

func TestLibraryIndexSearchAndOpen(t *testing.T) {
	cases := []struct {
		name    string
		lang    text.Lang
		keys    []string
		reading string
		want    []string
	}{
		{"opens on the page on screen", text.EN, nil, "", []string{"On screen now", "▸ Accept, handing out addr and rkey", "Steps of this tour", "Search: ▏"}},
		{"enter reads the page on screen", text.EN, []string{"enter"}, "accept", []string{"· accept", "Links (Tab/Shift-Tab choose, Enter opens)", "▸ What iWARP changes"}},
		{"search narrows the list", text.EN, []string{"type:rkey capab"}, "", []string{"Search: rkey capab▏", "▸ The rkey is a capability"}},
		{"a glossary entry opens the glossary at it", text.EN, []string{"type:glossary rnr", "enter"}, "glossary", []string{"RNR"}},
		{"a link is followed and esc goes back", text.EN, []string{"enter", "enter"}, "concept-iwarp", []string{"· concept-iwarp"}},
		{"esc from a followed link", text.EN, []string{"enter", "enter", "esc"}, "accept", []string{"· accept"}},
		{"esc from the first page: the index", text.EN, []string{"enter", "esc"}, "", []string{"Search:"}},
		{"zh: the index in Chinese", text.ZH, []string{"type:保护域"}, "", []string{"搜索：保护域▏", "术语表条目"}},
		{"no match says how to clear", text.EN, []string{"type:zzzq"}, "", []string{"no page matches: Ctrl+U clears the search"}},
		{"lesson page stops at the question", text.EN, []string{"type:lesson-bad-rkey", "enter"}, "lesson-bad-rkey", []string{"r run this lesson"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, st := newTestLibrary(t, c.lang)
			keys(l, st, c.lang, c.keys...)
			if got := l.Reading(); got != c.reading {
				t.Errorf("reading %q, want %q", got, c.reading)
			}
			s := screenOf(l, st)
			for _, w := range c.want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %q:\n%s", w, s)
				}
			}
			checkLibraryFrame(t, s, 80, 21)
		})
	}
}

func checkLibraryFrame(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, line := range lines {
		if termtext.Width(line) != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, termtext.Width(line), w, line)
		}
	}
}

func TestLibraryLessonPageHidesTheAnswer(t *testing.T) {
	l, st := newTestLibrary(t, text.EN)
	keys(l, st, text.EN, "type:lesson-bad-rkey", "enter")
	hidden := ansi.Strip(strings.Join(l.drawn.lines, "\n"))
	if !strings.Contains(hidden, "run the lesson (r)") {
		t.Errorf("the lesson page does not say why it stops:\n%s", hidden)
	}
	l.Resize(st, 80, 20, text.EN, "lesson-bad-rkey")
	whole := strings.Join(l.drawn.lines, "\n")
	if strings.Contains(whole, "run the lesson (r)") {
		t.Errorf("the revealed lesson page still stops at its question")
	}
	if !strings.Contains(ansi.Strip(whole), "What you will see") || strings.Contains(hidden, "What you will see") {
		t.Errorf("the lesson's answer: hidden before the prediction, shown after")
	}
}

func TestLibraryRunLessonAndClose(t *testing.T) {
	l, st := newTestLibrary(t, text.EN)
	if ev := keys(l, st, text.EN, "type:no-recv", "enter"); ev != (LibraryEvent{}) {
		t.Fatalf("opening a page: event %+v", ev)
	}
	if ev := keys(l, st, text.EN, "r"); ev.RunLesson != "no-recv" {
		t.Errorf("r on lesson-no-recv: event %+v, want RunLesson no-recv", ev)
	}
	keys(l, st, text.EN, "esc")
	if !l.Typing() {
		t.Errorf("esc from the page: not back in the index")
	}
	if ev := keys(l, st, text.EN, "esc"); !ev.Closed || l.IsOpen() {
		t.Errorf("esc in the index: event %+v, open %v", ev, l.IsOpen())
	}
}

// Tab walks the links, Shift-Tab back; Enter opens the selected one.
func TestLibraryLinkChoice(t *testing.T) {
	l, st := newTestLibrary(t, text.EN)
	keys(l, st, text.EN, "enter")
	links := l.drawn.links
	if len(links) < 2 {
		t.Fatalf("accept's page has %d links, want at least 2", len(links))
	}
	keys(l, st, text.EN, "tab", "tab", "shift+tab", "enter")
	if got := l.Reading(); got != links[1].ID {
		t.Errorf("tab tab shift-tab enter opened %q, want %q", got, links[1].ID)
	}
}

// A glossary entry opens the glossary with that entry on the first line.
func TestLibraryGlossaryEntryOnTop(t *testing.T) {
	for _, c := range []struct {
		lang        text.Lang
		query, term string
	}{{text.EN, "glossary rnr", "AETH"}, {text.ZH, "保护域", "保护域"}} {
		l, st := newTestLibrary(t, c.lang)
		keys(l, st, c.lang, "type:"+c.query)
		for l.entries[l.shown[l.cursor]].group != groupTerm {
			keys(l, st, c.lang, "down")
		}
		want := l.entries[l.shown[l.cursor]].term.In(c.lang)
		keys(l, st, c.lang, "enter")
		first := strings.Split(screenOf(l, st), "\n")[1]
		if l.Reading() != docs.GlossaryID || !strings.Contains(first, want) || !strings.Contains(want, c.term) || l.at.top == 0 {
			t.Errorf("%s %q: reading %q at line %d, first line %q, want the glossary at %q (a term with %q)", c.lang, c.query, l.Reading(), l.at.top, first, want, c.term)
		}
	}
}

// The mouse wheel scrolls the page being read, or moves the index's
// cursor, within bounds.
func TestLibraryWheel(t *testing.T) {
	l, st := newTestLibrary(t, text.EN)
	l.Wheel(3)
	if l.cursor != 3 {
		t.Errorf("wheel down in the index: cursor %d, want 3", l.cursor)
	}
	l.Wheel(-10)
	if l.cursor != 0 {
		t.Errorf("wheel up past the top: cursor %d, want 0", l.cursor)
	}
	keys(l, st, text.EN, "enter")
	l.Wheel(3)
	l.Resize(st, 80, 20, text.EN, "")
	if l.at.top != 3 {
		t.Errorf("wheel down on a page: top %d, want 3", l.at.top)
	}
	l.Wheel(1 << 20)
	l.Resize(st, 80, 20, text.EN, "")
	last := len(l.drawn.lines) - (20 - len(l.drawn.bar) - 2)
	if l.at.top != last {
		t.Errorf("wheel far down: top %d, want %d (the last screenful of %d lines)", l.at.top, last, len(l.drawn.lines))
	}
	l.Wheel(-1)
	l.Resize(st, 80, 20, text.EN, "")
	if l.at.top != last-1 {
		t.Errorf("one up from the bottom: top %d, want %d", l.at.top, last-1)
	}
}
