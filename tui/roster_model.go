package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
	"github.com/rdmatour/rdmatour/workshop"
)

// RosterSource is what the workshop screen reads: a *workshop.Room.
type RosterSource interface {
	Roster() []workshop.Row
	Counts() workshop.Counts
	Attendees() []*workshop.Attendee
	Addrs() []string
}

// WorkshopOptions configures RunWorkshop (the fields as in Options).
type WorkshopOptions struct {
	Room          RosterSource
	Lang          text.Lang
	Input         io.Reader
	Output        io.Writer
	Environ       []string
	Width, Height int
	// SaveResults writes the room's results (--results) and says where;
	// s on the roster calls it.
	SaveResults func() (string, error)
	// Join are the commands attendees run to join (Room.JoinCommands),
	// shown while the room is empty.
	Join []text.Text
}

// RunWorkshop shows the roster until q, Ctrl-C or ctx ends. The room goes
// on serving meanwhile; the caller closes it afterwards.
func RunWorkshop(ctx context.Context, opts WorkshopOptions) error {
	if opts.Room == nil {
		return errors.New("tui: no room")
	}
	m := newWorkshopModel(opts.Room, opts.Lang, noColor(opts.Environ), time.Now)
	m.save = opts.SaveResults
	m.roster.join = opts.Join
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Environ != nil {
		popts = append(popts, tea.WithEnvironment(opts.Environ))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	_, err := tea.NewProgram(m, popts...).Run()
	if ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted) {
		return nil // Ctrl-C ends the workshop: that is how it ends
	}
	return err
}

// workshopModel is the workshop server's screen: the header, the roster,
// and the selected attendee's live state, timeline and wire.
type workshopModel struct {
	src    RosterSource
	addrs  []string
	lang   text.Lang
	styles pane.Styles
	keys   keyMap
	now    func() time.Time
	w, h   int

	roster  roster
	detail  *attendeeDetail // the selected attendee's panes; nil: none selected
	detailN int

	save   func() (string, error) // s: the results (nil: none)
	status string                 // what the last s or q said, above the help
	// confirming: q was pressed with attendees in the room; the next q
	// ends the workshop, any other key goes back.
	confirming bool
	// spot shows the selected attendee's panes on the whole screen, for
	// the projector (Enter; Esc goes back to the roster).
	spot bool
	view rosterView // ?, Tab and z (roster_view.go)
	// class is the room's plan and question (roster_class.go).
	class class
}

// attendeeDetail is the selected attendee's session as the usual panes
// see it, and what they show, set in Update (View only frames it).
type attendeeDetail struct {
	sess                        *steps.Session
	tour                        []steps.Step
	snap                        steps.Snapshot
	state, timeline, wire, call pane.Content
}

func newWorkshopModel(src RosterSource, lang text.Lang, noColor bool, now func() time.Time) *workshopModel {
	m := &workshopModel{src: src, addrs: src.Addrs(), lang: normLang(lang), styles: pane.NewStyles(noColor), now: now}
	m.keys = newKeyMap(m.lang)
	m.refresh()
	m.fillDetail()
	return m
}

// Init implements tea.Model.
func (m *workshopModel) Init() tea.Cmd { return m.tick() }

func (m *workshopModel) tick() tea.Cmd {
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update implements tea.Model.
func (m *workshopModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tickMsg:
		m.refresh()
		cmd = m.tick()
	case tea.KeyPressMsg:
		cmd = m.key(msg)
	}
	m.roster.height = m.rosterRowsFit()
	m.roster.clamp()
	m.pickDetail()
	m.fillDetail()
	return m, cmd
}

func (m *workshopModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	page := max(m.roster.height-1, 1)
	if m.confirming {
		m.confirming, m.status = false, ""
		if key.Matches(msg, k.Quit) {
			return tea.Quit
		}
		return nil
	}
	if m.spot {
		return m.spotKey(msg)
	}
	if m.viewKey(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case m.classKey(msg):
	case msg.String() == "enter" && m.detail != nil:
		m.spot = true
	case msg.String() == "s":
		m.status = m.saveResults()
	case msg.String() == "o":
		m.roster.needFirst = !m.roster.needFirst
		m.refresh()
	case key.Matches(msg, k.Up):
		m.roster.move(-1)
	case key.Matches(msg, k.Down):
		m.roster.move(1)
	case key.Matches(msg, k.PgUp):
		m.roster.move(-page)
	case key.Matches(msg, k.PgDown):
		m.roster.move(page)
	case key.Matches(msg, k.Top):
		m.roster.move(-len(m.roster.rows))
	case key.Matches(msg, k.Bottom):
		m.roster.move(len(m.roster.rows))
	case key.Matches(msg, k.Lang):
		m.lang = nextLang(m.lang)
		m.keys = newKeyMap(m.lang)
	}
	return nil
}

// quit ends the workshop at once in an empty room; with attendees in it,
// it asks first: ending the room ends their tours.
func (m *workshopModel) quit() tea.Cmd {
	if n := m.roster.counts.Connected; n > 0 {
		m.confirming = true
		m.status = text.Text{EN: fmt.Sprintf("%d attendees are still in the room: q again ends the workshop and their tours; any other key goes back", n),
			ZH: fmt.Sprintf("教室里还有 %d 位学员：再按 q 结束 workshop 和他们的教程；按其他键返回", n)}.In(m.lang)
		return nil
	}
	return tea.Quit
}

// saveResults is what s says.
func (m *workshopModel) saveResults() string {
	if m.save == nil {
		return text.Text{EN: "no --results FILE was given: start the workshop with --results results.csv to save the room's results",
			ZH: "没有给 --results FILE：启动 workshop 时加上 --results results.csv 才能保存结果"}.In(m.lang)
	}
	where, err := m.save()
	if err != nil {
		return err.Error()
	}
	return where
}

// refresh re-reads the roster and the selected attendee's snapshot.
func (m *workshopModel) refresh() {
	m.roster.setRows(m.src.Roster(), m.src.Counts(), m.now())
	m.readClass()
	m.detailN = -1 // re-read below
	m.pickDetail()
}

// pickDetail points the detail panes at the selected attendee and reads
// its snapshot when the selection changed or a refresh asked for it.
func (m *workshopModel) pickDetail() {
	n := m.roster.selected()
	if n == m.detailN {
		return
	}
	m.detailN = n
	var sess *steps.Session
	for _, a := range m.src.Attendees() {
		if a.N == n {
			sess = a.Session()
		}
	}
	if sess == nil {
		m.detail = nil
		return
	}
	if m.detail == nil || m.detail.sess != sess {
		m.detail = &attendeeDetail{sess: sess, tour: sess.Steps()}
	}
	m.detail.snap = sess.Snapshot()
}

// fillDetail gives the detail panes their content for the screen's size
// and language (detailColumns' widths, frames excluded).
func (m *workshopModel) fillDetail() {
	d := m.detail
	if d == nil {
		return
	}
	w1, w2, w3 := detailColumns(m.w)
	if m.spot {
		w1, w2, w3 = m.w/2, m.w-m.w/2, m.w-m.w/2
	}
	if m.view.zoom {
		w1, w2, w3 = m.w, m.w, m.w
	}
	in := attendeeInput(m.styles, m.lang, d.tour, d.snap)
	d.call = in.Content(pane.Call, 0, w1-4, max(m.h/2-2, 1))
	lines, anchor := in.StateLines(0, w1-4)
	d.state = pane.Content{Title: text.Text{EN: "Live state", ZH: "实时状态"}.Label(m.lang), Lines: lines, Top: max(anchor, 0)}
	d.timeline = pane.Content{Title: text.Text{EN: "Timeline", ZH: "时序"}.Label(m.lang), Lines: in.TimelineLines(w2 - 4), Top: 1 << 20}
	d.wire = pane.Content{Title: in.WireTitle(0), Lines: in.WireLines(0, w3-4), Top: 1 << 20}
}

// attendeeInput is an attendee's session as the panes see it from the
// workshop server: nothing runs from this screen and no step was run
// here, so the current step is the last one the attendee ran (or the
// next one) and every change is fresh.
func attendeeInput(st pane.Styles, lang text.Lang, tour []steps.Step, snap steps.Snapshot) *pane.Input {
	in := &pane.Input{Styles: st, Lang: lang, Snaps: []steps.Snapshot{snap}, Tours: [][]steps.Step{tour}}
	if !snap.Done && snap.Next < len(snap.Steps) {
		in.Next, in.HasNext = pane.At{Idx: snap.Next}, true
	}
	switch {
	case snap.Next > 0:
		in.Cur = pane.At{Idx: min(snap.Next, len(snap.Steps)) - 1}
	case in.HasNext:
		in.Cur = in.Next
	}
	return in
}

// detailColumns are the widths of the detail's state, timeline and wire
// columns on a screen w wide.
func detailColumns(w int) (w1, w2, w3 int) {
	w1 = w * 2 / 5
	w2 = (w - w1) / 2
	return w1, w2, w - w1 - w2
}

// workshopLayout is how many roster rows fit, and the height of the
// detail panes, at w×h: the roster gets up to half the screen (less when
// the room is small), the detail panes the rest but the header and help.
func workshopLayout(w, h, rows int) (rosterRows, detailH int) {
	if w <= 0 || h <= 0 {
		return 0, 0
	}
	avail := max(h-2, 0) // header, help
	frameH := min(max(rows, 1)+3, max(avail/2, 5))
	frameH = min(frameH, avail)
	return max(frameH-3, 0), avail - frameH
}

// rosterLinesWanted is how many lines the roster asks for: a row per
// attendee, or, while nobody has joined, the lines saying how to join
// (each command wrapped once at most).
func (m *workshopModel) rosterLinesWanted() int {
	if n := len(m.roster.rows); n > 0 || len(m.roster.join) == 0 {
		return n
	}
	return 1 + 2*len(m.roster.join)
}

// View implements tea.Model. It is a pure function of the model.
func (m *workshopModel) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.WindowTitle = "rdmatour workshop"
	return v
}

func (m *workshopModel) screen() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	if m.spot && m.detail != nil {
		return strings.Join(termtext.Block(m.spotlight(), m.w, m.h), "\n")
	}
	if m.view.help {
		return strings.Join(termtext.Block(m.rosterHelp(), m.w, m.h), "\n")
	}
	st := m.styles
	help := m.rosterFooter()
	if m.status != "" {
		help = m.status
	}
	helpLine := st.Dim.R(termtext.Fit(help, m.w))
	if zoomed := m.zoomedDetail(); m.view.zoom && zoomed != nil {
		return strings.Join(termtext.Block(append(zoomed, helpLine), m.w, m.h), "\n")
	}
	heads := m.headLines()
	_, detailH := workshopLayout(m.w, m.h-len(heads)+1, m.rosterLinesWanted())
	out := heads
	r := m.roster
	r.height = m.rosterRowsFit()
	title := text.Text{EN: "Roster", ZH: "名单"}.Label(m.lang)
	out = append(out, pane.Frame(st, title, r.lines(st, m.lang, m.w-4), m.w, r.height+3, 0, m.view.focus == paneRoster)...)
	if !m.view.zoom {
		out = append(out, m.detailView(detailH)...)
	}
	out = append(out, helpLine)
	return strings.Join(termtext.Block(out, m.w, m.h), "\n")
}

// detailView is the selected attendee's live state, timeline and wire,
// side by side, h rows high.
func (m *workshopModel) detailView(h int) []string {
	if h <= 0 {
		return nil
	}
	st := m.styles
	if m.detail == nil {
		say := text.Text{EN: "select an attendee to see their side of the connection", ZH: "选中一位学员，查看这条连接在 server 端的状态"}.In(m.lang)
		if r := m.roster; r.sel < len(r.rows) && !r.rows[r.sel].Phase.InRoom() {
			say = text.Text{EN: fmt.Sprintf("#%d has left: the room keeps the side of the connection of the last %d attendees to leave, and everyone's row", m.detailN, workshop.KeptSessions),
				ZH: fmt.Sprintf("#%d 已离开：教室只保留最近离开的 %d 位学员在 server 端的连接状态，名单里的行则每人都保留", m.detailN, workshop.KeptSessions)}.In(m.lang)
		}
		return pane.Frame(st, text.Text{EN: "Attendee", ZH: "学员"}.Label(m.lang), []string{st.Dim.R(say)}, m.w, h, 0, false)
	}
	w1, w2, w3 := detailColumns(m.w)
	sel := "#" + strconv.Itoa(m.detailN) + " · "
	d := m.detail
	return termtext.JoinColumns(
		pane.Frame(st, sel+d.state.Title, d.state.Lines, w1, h, d.state.Top, m.view.focus == paneState),
		pane.Frame(st, sel+d.timeline.Title, d.timeline.Lines, w2, h, d.timeline.Top, m.view.focus == paneTimeline),
		pane.Frame(st, sel+d.wire.Title, d.wire.Lines, w3, h, d.wire.Top, m.view.focus == paneWire))
}
