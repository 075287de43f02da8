package tui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// slot names a pane of the screen: its kind, and the session index it
// shows (0 in a one-session run; 0 server, 1 client in the demo).
type slot struct {
	kind pane.Kind
	side int
}

// Messages.
type (
	tickMsg     struct{}
	stepDoneMsg struct {
		side, idx int
		out       steps.Outcome
		err       error
	}
)

// model is the TUI's root: it routes every message, owns the sessions'
// progress and hands the panes their Input. Its parts each own one job.
type model struct {
	ctx      context.Context
	sessions []steps.Runner
	demo     bool
	plan     []steps.Turn
	planPos  int
	tours    [][]steps.Step // each session's steps (fixed for a session)
	snaps    []steps.Snapshot
	end      tourEnd

	lang   text.Lang
	styles pane.Styles
	keys   keyMap
	help   help.Model
	now    func() time.Time

	run  runState
	auto autoRun
	scr  screenState
	// page is what the explanation pane shows besides the step's page:
	// the lesson's (at the start; L toggles), the lesson list, the glossary.
	page pane.Page
	// look is the finished step being looked back at (history.go).
	look     lookBack
	quitting bool
	// in is what the panes and the chrome draw from, filled by sync.
	in *pane.Input
}

func newModel(ctx context.Context, opts Options) (*model, error) {
	switch len(opts.Sessions) {
	case 1, 2:
	default:
		return nil, errors.New("tui: need one session, or two (server, client) for the demo")
	}
	for _, s := range opts.Sessions {
		if s == nil {
			return nil, errors.New("tui: nil session")
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	m := &model{
		ctx:      ctx,
		sessions: opts.Sessions,
		demo:     len(opts.Sessions) == 2,
		lang:     normLang(opts.Lang),
		styles:   pane.NewStyles(noColor(opts.Environ)),
		now:      time.Now,
		run:      runState{lastIdx: -1, spin: spinner.New(spinner.WithSpinner(spinner.MiniDot))},
		scr:      screenState{w: opts.Width, h: opts.Height, focus: tabExplain, panes: map[slot]*pane.Scroll{}, help: pane.NewScroll()},
		end:      tourEnd{errs: make([]error, len(opts.Sessions))},
		page:     pane.Page{Docs: opts.Docs},
	}
	if m.demo {
		if opts.Sessions[0].Config().Role != steps.Server || opts.Sessions[1].Config().Role != steps.Client {
			return nil, errors.New("tui: the demo needs [server, client] sessions")
		}
		m.plan = steps.DemoPlan(opts.Sessions[0].Steps(), opts.Sessions[1].Steps())
		// History shows both sides as they were after each step.
		steps.LinkDemo(opts.Sessions[0], opts.Sessions[1])
	}
	m.setLesson(opts.Sessions[0].Config().LessonName())
	m.auto.on, m.auto.delay = opts.Auto, opts.AutoDelay
	if m.auto.delay <= 0 {
		m.auto.delay = defaultAutoDelay
	}
	m.help = help.New()
	m.help.ShortSeparator = "  "
	m.help.Ellipsis = "…" // more keys than fit: ? lists them all
	m.help.Styles = m.styles.HelpStyles
	m.setLang(m.lang)
	m.page.Markdown = termtext.NewMarkdown(m.styles.Page())
	m.scr.lib = m.newLibrary()
	m.refresh()
	m.focusReading()
	m.noticeChanges(-1, steps.SectionNone) // what is there at the start is not news
	m.sync()
	return m, nil
}

// setLesson names the lesson being run and opens on its page, if it has
// one.
func (m *model) setLesson(name string) {
	m.page.Lesson = name
	if name == "" {
		return
	}
	for _, l := range text.Both.Each() {
		if m.page.Docs == nil {
			break
		}
		if md, err := m.page.Docs(l.String(), pane.LessonPageID(name)); err == nil && md != "" {
			m.page.LessonDoc = true
		}
	}
	m.page.ShowLesson = m.page.LessonDoc
}

func (m *model) setLang(l text.Lang) {
	m.lang = l
	m.keys = newKeyMap(l)
	m.replayKeys()
	m.keys.Side.SetEnabled(m.demo)
	if !m.page.LessonDoc {
		// The plain tour: L lists the lessons.
		m.keys.Lesson.SetHelp("L", text.Text{EN: "lessons", ZH: "课程"}.In(l))
	}
	if m.auto.on {
		// The steps run by themselves: Enter only hurries the next one.
		m.keys.Next.SetHelp("enter", text.Text{EN: "auto: next step now", ZH: "自动：立即下一步"}.In(l))
	}
}

// refresh re-reads every session's snapshot.
func (m *model) refresh() {
	if m.tours == nil {
		for _, s := range m.sessions {
			m.tours = append(m.tours, s.Steps())
		}
	}
	m.snaps = m.snaps[:0]
	for _, s := range m.sessions {
		s.Sample(time.Now()) // the peer's bytes land with no step of this side
		m.snaps = append(m.snaps, s.Snapshot())
	}
	m.replayPeer()
	m.applyHistory()
}

func (m *model) tick() tea.Cmd {
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// Init implements tea.Model.
func (m *model) Init() tea.Cmd {
	return tea.Batch(m.tick(), m.autoNext())
}

// Update implements tea.Model: the one place every message goes through.
// After each message the panes get their sizes and content, so that View
// only draws.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.handle(msg)
	m.sync()
	return m, cmd
}

func (m *model) handle(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.scr.w, m.scr.h = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
		m.focusReading()
	case tickMsg:
		if m.quitting {
			return nil
		}
		if m.run.on {
			// One timer for the whole UI: the spinner turns on the
			// refresh tick rather than on a timer of its own.
			m.run.spin, _ = m.run.spin.Update(spinner.TickMsg{ID: m.run.spin.ID()})
		}
		m.refresh()
		m.noticeChanges(-1, steps.SectionNone)
		return m.tick()
	case stepDoneMsg:
		return tea.Batch(m.stepDone(msg), m.autoNext())
	case autoStepMsg:
		return m.autoStep(msg)
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseWheelMsg:
		if m.tooSmallNow() {
			return nil
		}
		d := map[tea.MouseButton]int{tea.MouseWheelUp: -3, tea.MouseWheelDown: 3}[msg.Button]
		if m.scr.lib.IsOpen() {
			m.scr.lib.Wheel(d) // the library covers the panes
		} else {
			m.scrollBy(d)
		}
	}
	return nil
}

func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if m.scr.lib.IsOpen() && !m.tooSmallNow() {
		return m.libraryKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case m.tooSmallNow():
		// Only the "too small" notice is on screen: a key must not run a
		// step (or change a pane) the learner cannot see.
		return nil
	case key.Matches(msg, k.Predict) && m.predictKey(msg.String()):
	case m.scr.zoomed && (key.Matches(msg, k.Zoom) || msg.String() == "esc"):
		m.scr.zoomed = false
	case key.Matches(msg, k.Zoom):
		m.scr.zoomed = true
	case m.historyKey(msg):
		return nil // [ ] esc, ↑/↓ on the steps pane, enter while looking back
	case key.Matches(msg, k.Next):
		return m.runNext()
	case key.Matches(msg, k.Lang):
		m.setLang(nextLang(m.lang))
		m.paneAt(slot{pane.Explain, 0}).Follow()
	case m.pageKey(msg): // L, P, T
	case key.Matches(msg, k.Help):
		m.scr.showHelp = !m.scr.showHelp
		m.help.ShowAll = m.scr.showHelp
		m.scr.help.Follow() // each time from the top
	case key.Matches(msg, k.Focus):
		m.scr.focusMoved = true
		if msg.String() == "shift+tab" {
			m.moveFocus(-1)
		} else {
			m.moveFocus(1)
		}
		m.spotMoved()
	case key.Matches(msg, k.Side):
		if m.demo {
			m.scr.side = 1 - m.scr.side
		}
		m.spotMoved()
	case key.Matches(msg, k.Up):
		m.scrollBy(-1)
	case key.Matches(msg, k.Down):
		m.scrollBy(1)
	case key.Matches(msg, k.PgUp):
		m.scrollBy(-m.pageLen())
	case key.Matches(msg, k.PgDown):
		m.scrollBy(m.pageLen())
	case key.Matches(msg, k.Top):
		m.scrollBy(-1 << 20)
	case key.Matches(msg, k.Bottom):
		m.scrollBy(1 << 20)
	}
	return nil
}

func (m *model) pageLen() int { return max(1, m.scr.h/2) }

func (m *model) quit() tea.Cmd {
	m.quitting = true
	if m.run.cancel != nil {
		m.run.cancel() // the step returns promptly; Run then closes the sessions
	}
	return tea.Quit
}

// focusReading puts the focus on the explanation, in whatever place the
// layout has it, until the learner moves it: T then z zooms the
// glossary, and the scroll keys scroll the page being read.
func (m *model) focusReading() {
	if m.scr.focusMoved {
		return
	}
	for i, s := range m.focusables() {
		if s == (slot{pane.Explain, 0}) {
			m.scr.focus = i
		}
	}
}

// focused is the pane that scroll keys move.
func (m *model) focused() slot {
	f := m.focusables()
	return f[min(m.scr.focus, len(f)-1)]
}

func (m *model) scrollBy(d int) {
	if m.scr.showHelp {
		m.scr.help.ScrollBy(d)
		return
	}
	m.paneAt(m.focused()).ScrollBy(d)
}

// paneAt is the pane in slot p, made on first use.
func (m *model) paneAt(p slot) *pane.Scroll {
	sp, ok := m.scr.panes[p]
	if !ok {
		sp = pane.NewScroll()
		m.scr.panes[p] = sp
	}
	return sp
}

// sync sizes every pane of the current layout and gives it its content.
func (m *model) sync() {
	m.in = m.input()
	m.settleEnd()
	if m.tooSmallNow() || len(m.snaps) == 0 {
		return
	}
	body := m.bodyHeight(len(m.bannerLines(m.scr.w)))
	m.scr.lib.Resize(m.styles, m.scr.w, body, m.lang, m.revealedLesson())
	// s swaps the side only where one side is shown at a time.
	m.keys.Side.SetEnabled(m.demo && m.narrow())
	if m.scr.showHelp {
		m.scr.help.SetSize(m.scr.w, body)
		m.scr.help.SetContent(text.Text{EN: "Help", ZH: "帮助"}.Label(m.lang), m.fullHelp(m.scr.w-4), 0)
	}
	for _, n := range m.layout(m.scr.w, body).leaves() {
		sp := m.paneAt(n.slot)
		sp.SetSize(n.w, n.h)
		c := m.in.Content(n.slot.kind, n.slot.side, n.w-4, n.h-2)
		if m.scr.zoomed {
			c.Title += " · " + text.Text{EN: "z/esc: back", ZH: "z/esc：还原"}.In(m.lang)
		}
		if n.w >= m.scr.w { // z cannot widen it: say the title whole inside
			c = wholeTitle(m.styles, c, n.w)
		}
		sp.SetContent(c.Title, c.Lines, c.Top)
	}
}

// View implements tea.Model. It is a pure function of the model.
func (m *model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "rdmatour"
	return v
}
