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
	sessions []*steps.Session
	demo     bool
	plan     []steps.Turn
	planPos  int
	tours    [][]steps.Step // each session's steps (fixed for a session)
	snaps    []steps.Snapshot
	end      tourEnd

	lang   steps.Lang
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

// runState is the step in flight and the last one run.
type runState struct {
	on        bool // a step runs
	side, idx int  // the running step
	cancel    context.CancelFunc
	lastSide  int
	lastIdx   int // -1 before the first step
	// keyWhileWaiting: a run key came while a step was still running;
	// the call pane says why it waits (waiting.go).
	keyWhileWaiting bool
	// wait is what the peer must do for the running step to end (onPeer):
	// Session.WaitFor, read once when the step starts, not every frame.
	wait   steps.PeerWait
	onPeer bool
	// stepAt is when the learner last ran a step: bytes written after it
	// stay highlighted until the next step, however long they read.
	stepAt time.Time
	// spin turns while a step runs; the refresh tick advances it.
	spin spinner.Model
}

// autoRun runs the steps by themselves, delay apart (auto.go).
type autoRun struct {
	on    bool
	delay time.Duration
	gen   int // the pending --auto tick's schedule
}

// screenState is the terminal's size and what the layout shows.
type screenState struct {
	w, h     int
	focus    int // index into focusables(); the narrow layout's tab
	side     int // the side shown in the narrow demo layout
	showHelp bool
	// zoomed shows the focused pane alone (z; z or esc goes back).
	zoomed bool
	// panes are the screen's panes, each with its content and its own
	// scroll offset; Update fills them, View only draws them.
	panes map[slot]*pane.Scroll
}

// tourEnd is how the tour ended: each side's error, the one that stopped
// the tour, and the result sentence of the end banner (set by refresh).
type tourEnd struct {
	errs []error
	err  *TourError
	// hasResult: a side reached its result; resultOnly: the result's
	// sentence is the whole banner (the read and atomic tours).
	hasResult, resultOnly bool
	result                steps.Text
	expected              steps.Text // the lesson's first expected error
	next                  steps.Text // what to try next
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
		scr:      screenState{w: opts.Width, h: opts.Height, focus: tabExplain, panes: map[slot]*pane.Scroll{}},
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
	m.setLesson(opts.Sessions[0].Config().Lesson)
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
	m.refresh()
	m.sync()
	return m, nil
}

// setLesson names the lesson being run, reads its summary once (the
// lesson line shows it on every frame) and opens on its page, if it has one.
func (m *model) setLesson(name string) {
	m.page.Lesson = name
	if name == "" {
		return
	}
	if l, err := steps.LessonByName(name); err == nil {
		m.page.LessonSummary = l.Summary
	}
	for _, l := range steps.LangBoth.Each() {
		if m.page.Docs == nil {
			break
		}
		if md, err := m.page.Docs(l.String(), pane.LessonPageID(name)); err == nil && md != "" {
			m.page.LessonDoc = true
		}
	}
	m.page.ShowLesson = m.page.LessonDoc
}

func (m *model) setLang(l steps.Lang) {
	m.lang = l
	m.keys = newKeyMap(l)
	m.replayKeys()
	m.keys.Side.SetEnabled(m.demo)
	if !m.page.LessonDoc {
		// The plain tour: L lists the lessons.
		m.keys.Lesson.SetHelp("L", pane.Tr(l, "lessons", "课程"))
	}
	if m.auto.on {
		// The steps run by themselves: Enter only hurries the next one.
		m.keys.Next.SetHelp("enter", pane.Tr(l, "auto: next step now", "自动：立即下一步"))
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
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scrollBy(-3)
		case tea.MouseWheelDown:
			m.scrollBy(3)
		}
	}
	return nil
}

func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
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
	case key.Matches(msg, k.Lesson):
		// The lesson's page, or in the plain tour the list of lessons.
		m.page.ShowLesson, m.page.ShowGlossary = !m.page.ShowLesson, false
		m.paneAt(slot{pane.Explain, 0}).Follow()
	case key.Matches(msg, k.Glossary):
		m.page.ShowGlossary, m.page.ShowLesson = !m.page.ShowGlossary, false
		m.paneAt(slot{pane.Explain, 0}).Follow()
	case key.Matches(msg, k.Help):
		m.scr.showHelp = !m.scr.showHelp
		m.help.ShowAll = m.scr.showHelp
	case key.Matches(msg, k.Focus):
		n := len(m.focusables())
		if msg.String() == "shift+tab" {
			m.scr.focus = (m.scr.focus + n - 1) % n
		} else {
			m.scr.focus = (m.scr.focus + 1) % n
		}
	case key.Matches(msg, k.Side):
		if m.demo {
			m.scr.side = 1 - m.scr.side
		}
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

// focused is the pane that scroll keys move.
func (m *model) focused() slot {
	f := m.focusables()
	return f[min(m.scr.focus, len(f)-1)]
}

func (m *model) scrollBy(d int) { m.paneAt(m.focused()).ScrollBy(d) }

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
	for _, n := range m.layout(m.scr.w, body).leaves() {
		sp := m.paneAt(n.slot)
		sp.SetSize(n.w, n.h)
		c := m.in.Content(n.slot.kind, n.slot.side, n.w-4, n.h-2)
		if m.scr.zoomed {
			c.Title += " · " + pane.Tr(m.lang, "z/esc: back", "z/esc：还原")
		}
		sp.SetContent(c.Title, c.Lines, c.Top)
	}
}

// curStep is the step the explanation and the call pane are about: the
// running one, else the one just run, else the first.
func (m *model) curStep() (side, idx int) {
	switch {
	case m.look.on:
		return m.look.side, m.look.idx
	case m.run.on:
		return m.run.side, m.run.idx
	case m.run.lastIdx >= 0:
		return m.run.lastSide, m.run.lastIdx
	case !m.demo && m.snaps[0].Next > 0:
		// Steps ran before this model saw them (or the tour ended).
		return 0, min(m.snaps[0].Next, len(m.snaps[0].Steps)) - 1
	}
	side, idx, ok := m.nextTurn()
	if !ok {
		return 0, 0
	}
	return side, idx
}

// nextTurn is the session index and step index the next keypress runs;
// ok is false when the tour is over (or failed).
func (m *model) nextTurn() (side, idx int, ok bool) {
	if m.end.err != nil {
		return 0, 0, false
	}
	if !m.demo {
		s := m.snaps[0]
		if s.Done || s.Next >= len(s.Steps) {
			return 0, 0, false
		}
		return 0, s.Next, true
	}
	if m.planPos >= len(m.plan) {
		return 0, 0, false
	}
	t := m.plan[m.planPos]
	side = 0
	if t.Side == steps.Client {
		side = 1
	}
	return side, t.Index, true
}

func (m *model) runNext() tea.Cmd {
	if m.run.on {
		m.run.keyWhileWaiting = true
		return nil
	}
	if m.quitting {
		return nil
	}
	m.run.keyWhileWaiting = false
	if _, _, pending := pane.PendingPrediction(m.snaps, m.demo); pending {
		// The lesson asks first: show its question rather than run.
		m.page.ShowLesson, m.page.ShowGlossary = m.page.LessonDoc, false
		if m.narrow() {
			m.scr.focus = tabExplain
		}
		return nil
	}
	side, idx, ok := m.nextTurn()
	if !ok {
		return nil
	}
	sess := m.sessions[side]
	if d, _ := sess.Done(); d {
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.run.on, m.run.side, m.run.idx, m.run.cancel = true, side, idx, cancel
	m.run.wait, m.run.onPeer = m.peerWait(side, idx) // once per step: WaitFor builds the peer's tour
	m.run.stepAt = m.now()
	m.scr.side = side
	m.page.ShowLesson = false // the explanation follows the step; L brings the lesson back
	m.page.ShowGlossary = false
	m.paneAt(slot{pane.Explain, 0}).Follow()
	m.paneAt(slot{pane.Call, 0}).Follow()
	m.refresh()
	return func() tea.Msg {
		out, err := sess.RunNext(ctx)
		return stepDoneMsg{side: side, idx: idx, out: out, err: err}
	}
}

func (m *model) stepDone(msg stepDoneMsg) tea.Cmd {
	m.run.on, m.run.keyWhileWaiting = false, false
	if m.run.cancel != nil {
		m.run.cancel()
		m.run.cancel = nil
	}
	m.run.lastSide, m.run.lastIdx = msg.side, msg.idx
	if m.demo && msg.err == nil {
		m.planPos++
	}
	if msg.err != nil && !errors.Is(msg.err, steps.ErrTourOver) {
		m.end.errs[msg.side] = msg.err
		if !m.quitting {
			id := ""
			if st := m.sessions[msg.side].Steps(); msg.idx < len(st) {
				id = st[msg.idx].ID
			}
			m.end.err = &TourError{Side: m.sessions[msg.side].Config().Role, StepID: id,
				Explain: steps.ExplainIn(msg.err, steps.LangEN.String()), Err: msg.err}
		}
	}
	m.refresh()
	return nil
}

// allDone says whether every tour finished without error.
func (m *model) allDone() bool {
	for _, s := range m.sessions {
		d, f := s.Done()
		if !d || f {
			return false
		}
	}
	return m.end.err == nil
}

// View implements tea.Model. It is a pure function of the model.
func (m *model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "rdmatour"
	return v
}
