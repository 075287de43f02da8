package pane

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// Library is the knowledge layer: an index of every page (the steps of
// this tour, the other steps, lessons, concepts, guides and each glossary
// entry) with incremental search, and a page view whose links can be
// followed. It owns its state: Update changes it and renders the page for
// the size and language it is given; View only draws.
type Library struct {
	open bool
	// pages returns a page's Markdown (docs.Page in the program).
	pages func(lang, id string) (string, error)
	md    *termtext.Markdown
	// entries is the index, built once; shown is the entries the query
	// matches, in order; cursor is the selected one of shown.
	entries []libEntry
	shown   []int
	cursor  int
	query   textinput.Model
	// at is the page being read (nil: the index); back the pages to go
	// back to, the latest last.
	at   *pageAt
	back []pageAt
	// notice is what the model says about the last action (how to start a
	// lesson here), shown over the page until the next key.
	notice text.Text
	size   libSize
	drawn  libDrawn
}

// libSize is what the library is drawn for: given by Resize.
type libSize struct {
	w, h     int
	lang     text.Lang
	revealed string // the lesson page whose prediction is made: shown whole
}

// libDrawn is what Resize computed for View: the rows of the index or
// the lines of the page, and the first one to show.
type libDrawn struct {
	rows  []string
	lines []string
	links []docs.Link
	bar   []string // the links under the page
	off   int
}

// pageAt is one page being read: its ID, where the reader is, the link
// selected and, for a glossary entry, the term to show first.
type pageAt struct {
	id   string
	top  int
	link int
	term text.Text
	// placed says top was chosen (by the term, or by scrolling).
	placed bool
}

// libEntry is one row of the index that can be selected.
type libEntry struct {
	id    string
	group libGroup
	title text.Text
	term  text.Text // a glossary entry: its term in each language
	// search is what a query is matched against: the title (or the
	// glossary entry) in both languages, and the ID, lower case.
	search string
}

// LibraryEvent is what a key in the library asks of the model.
type LibraryEvent struct {
	// Closed: the learner left the library.
	Closed bool
	// RunLesson names a lesson the learner asked to run (r on its page).
	RunLesson string
}

// NewLibrary builds the index once from the docs package. tourSteps are
// the step IDs of the tours on screen, in order: their pages come first.
func NewLibrary(pages func(lang, id string) (string, error), md *termtext.Markdown, tourSteps []string) *Library {
	q := textinput.New()
	q.Prompt = ""
	q.CharLimit = 40
	q.SetVirtualCursor(false)
	l := &Library{pages: pages, md: md, query: q}
	l.entries = indexEntries(tourSteps)
	l.filter()
	return l
}

// openAt shows the index, the search empty, the cursor on the first
// entry of group; onScreen, the page the explanation pane shows, is
// listed first.
func (l *Library) openAt(onScreen string, group libGroup) {
	l.open, l.at, l.back, l.notice = true, nil, nil, text.Text{}
	l.query.Reset()
	l.query.Focus()
	l.entries = withOnScreen(l.entries, onScreen)
	l.filter()
	for i, e := range l.shown {
		if l.entries[e].group == group {
			l.cursor = i
			break
		}
	}
}

// OpenLessons opens the index on its lessons.
func (l *Library) OpenLessons(onScreen string) { l.openAt(onScreen, groupLesson) }

// OpenPages opens the index on the page the learner is reading.
func (l *Library) OpenPages(onScreen string) { l.openAt(onScreen, groupOnScreen) }

// IsOpen says the library covers the panes.
func (l *Library) IsOpen() bool { return l != nil && l.open }

// Typing says keys go to the search field: letters are a query, not
// commands.
func (l *Library) Typing() bool { return l.IsOpen() && l.at == nil }

// Reading is the ID of the page being read, "" in the index.
func (l *Library) Reading() string {
	if l.at == nil {
		return ""
	}
	return l.at.id
}

// Query is the search as typed.
func (l *Library) Query() string { return l.query.Value() }

// Tell shows t over the page until the next key (how to start a lesson).
func (l *Library) Tell(t text.Text) { l.notice = t }

// Update handles a key while the library is open.
func (l *Library) Update(msg tea.KeyPressMsg) LibraryEvent {
	l.notice = text.Text{}
	if l.at != nil {
		return l.pageKey(msg)
	}
	switch msg.String() {
	case "esc":
		l.open = false
		return LibraryEvent{Closed: true}
	case "enter":
		if l.cursor < len(l.shown) {
			e := l.entries[l.shown[l.cursor]]
			l.at = &pageAt{id: e.id, term: e.term}
		}
	case "up", "ctrl+p":
		l.cursor = max(0, l.cursor-1)
	case "down", "ctrl+n":
		l.cursor = min(len(l.shown)-1, l.cursor+1)
	case "pgup":
		l.cursor = max(0, l.cursor-l.pageRows())
	case "pgdown":
		l.cursor = max(0, min(len(l.shown)-1, l.cursor+l.pageRows()))
	default:
		before := l.query.Value()
		l.query, _ = l.query.Update(msg)
		if l.query.Value() != before {
			l.filter()
		}
	}
	return LibraryEvent{}
}

// pageKey handles a key while a page is read.
func (l *Library) pageKey(msg tea.KeyPressMsg) LibraryEvent {
	at := l.at
	n := len(l.drawn.links)
	switch msg.String() {
	case "esc", "backspace", "left", "h":
		l.goBack()
	case "tab":
		if n > 0 {
			at.link = (at.link + 1) % n
		}
	case "shift+tab":
		if n > 0 {
			at.link = (at.link + n - 1) % n
		}
	case "enter", "right":
		if at.link < n {
			l.back = append(l.back, *at)
			l.at = &pageAt{id: l.drawn.links[at.link].ID}
		}
	case "r":
		if name, ok := strings.CutPrefix(at.id, docs.LessonPrefix); ok {
			return LibraryEvent{RunLesson: name}
		}
	case "P", "/":
		l.at, l.back = nil, nil
	default:
		l.scrollKey(msg.String())
	}
	return LibraryEvent{}
}

// scrollKey moves the page being read.
func (l *Library) scrollKey(k string) {
	d := map[string]int{"up": -1, "k": -1, "down": 1, "j": 1, "pgup": -l.pageRows(), "b": -l.pageRows(),
		"pgdown": l.pageRows(), "f": l.pageRows(), "space": l.pageRows(), "home": -1 << 20, "g": -1 << 20, "end": 1 << 20, "G": 1 << 20}[k]
	if d != 0 {
		l.Wheel(d)
	}
}

// Wheel moves the page being read by d lines, or the index's cursor by d
// entries.
func (l *Library) Wheel(d int) {
	if l.at == nil {
		l.cursor = max(0, min(len(l.shown)-1, l.cursor+d))
		return
	}
	l.at.top = max(0, min(l.at.top+d, len(l.drawn.lines)-1))
	l.at.placed = true
}

// goBack returns to the page read before, or to the index.
func (l *Library) goBack() {
	if n := len(l.back); n > 0 {
		prev := l.back[n-1]
		l.back = l.back[:n-1]
		l.at = &prev
		return
	}
	l.at = nil
}

// pageRows is how many rows a page key moves.
func (l *Library) pageRows() int { return max(1, l.size.h/2) }

// filter keeps the entries every word of the query matches.
func (l *Library) filter() {
	words := strings.Fields(strings.ToLower(l.query.Value()))
	l.shown = l.shown[:0]
	for i, e := range l.entries {
		if matchesAll(e.search, words) {
			l.shown = append(l.shown, i)
		}
	}
	l.cursor = 0
}

func matchesAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
