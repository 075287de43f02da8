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
)

// pane names a scrollable pane; side is the session index (0 in a
// one-session run; 0 server, 1 client in the demo).
type pane struct {
	kind paneKind
	side int
}

type paneKind int

const (
	paneSteps paneKind = iota
	paneExplain
	paneCall
	paneState
	paneTimeline
	paneWire
)

// Messages.
type (
	tickMsg     struct{}
	stepDoneMsg struct {
		side, idx int
		out       steps.Outcome
		err       error
	}
)

type model struct {
	ctx      context.Context
	sessions []steps.Runner
	demo     bool
	plan     []steps.Turn
	planPos  int
	docs     func(lang, id string) (string, error)

	lang   steps.Lang
	styles Styles
	keys   keyMap
	help   help.Model
	now    func() time.Time

	w, h  int
	snaps []steps.Snapshot

	running   bool
	runSide   int
	runIdx    int
	cancelRun context.CancelFunc
	lastSide  int
	lastIdx   int // -1 before the first step
	errs      []error
	tourErr   *TourError
	// spin turns while a step runs; the refresh tick advances it.
	spin spinner.Model
	// auto runs the steps by themselves, autoDelay apart (auto.go).
	auto      bool
	autoDelay time.Duration
	autoGen   int // the pending --auto tick's schedule (auto.go)
	// keyWhileWaiting: a run key came while a step was still running;
	// the call pane says why it waits (waiting.go).
	keyWhileWaiting bool

	focus    int // index into focusables(); the narrow layout's tab
	side     int // the side shown in the narrow demo layout
	showHelp bool
	quitting bool
	// panes are the screen's panes, each with its content and its own
	// scroll offset; Update fills them, View only draws them.
	panes map[pane]*scrollPane

	md    *markdown
	tours [][]steps.Step // each session's steps (fixed for a session)

	// lesson is the lesson being run ("" for the plain tour); lessonDoc
	// says its page exists. showLesson puts that page in the explanation
	// pane instead of the current step's (at the start; L toggles).
	lesson     string
	lessonDoc  bool
	showLesson bool
	// showGlossary puts the glossary in the explanation pane (T).
	showGlossary bool
	// stepAt is when the learner last ran a step: bytes written after it
	// stay highlighted until the next step, however long they read.
	stepAt time.Time
	// zoomed shows the focused pane alone (z; z or esc goes back).
	zoomed bool
	// look is the finished step being looked back at (history.go).
	look lookBack
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
		docs:     opts.Docs,
		lang:     normLang(opts.Lang),
		styles:   NewStyles(noColor(opts.Environ)),
		now:      time.Now,
		w:        opts.Width,
		h:        opts.Height,
		lastIdx:  -1,
		errs:     make([]error, len(opts.Sessions)),
		panes:    map[pane]*scrollPane{},
		focus:    tabExplain,
		spin:     spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	if m.demo {
		if opts.Sessions[0].Config().Role != steps.Server || opts.Sessions[1].Config().Role != steps.Client {
			return nil, errors.New("tui: the demo needs [server, client] sessions")
		}
		m.plan = steps.DemoPlan(opts.Sessions[0].Steps(), opts.Sessions[1].Steps())
		// History shows both sides as they were after each step.
		steps.LinkDemo(opts.Sessions[0], opts.Sessions[1])
	}
	m.lesson = opts.Sessions[0].Config().LessonName()
	if m.lesson != "" && m.docs != nil {
		for _, l := range steps.LangBoth.Each() {
			if md, err := m.docs(l.String(), lessonPageID(m.lesson)); err == nil && md != "" {
				m.lessonDoc = true
			}
		}
	}
	m.showLesson = m.lessonDoc
	m.auto, m.autoDelay = opts.Auto, opts.AutoDelay
	if m.autoDelay <= 0 {
		m.autoDelay = defaultAutoDelay
	}
	m.help = help.New()
	m.help.ShortSeparator = "  "
	m.help.Ellipsis = "…" // more keys than fit: ? lists them all
	m.help.Styles = m.styles.HelpStyles
	m.setLang(m.lang)
	m.md = newMarkdown(m.styles)
	m.refresh()
	m.sync()
	return m, nil
}

func (m *model) setLang(l steps.Lang) {
	m.lang = l
	m.keys = newKeyMap(l)
	m.replayKeys()
	m.keys.Side.SetEnabled(m.demo)
	if !m.lessonDoc {
		// The plain tour: L lists the lessons.
		m.keys.Lesson.SetHelp("L", tr(l, "lessons", "课程"))
	}
	if m.auto {
		// The steps run by themselves: Enter only hurries the next one.
		m.keys.Next.SetHelp("enter", tr(l, "auto: next step now", "自动：立即下一步"))
	}
}

// lessonPageID is the docs page of a lesson.
func lessonPageID(name string) string { return "lesson-" + name }

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
		m.w, m.h = msg.Width, msg.Height
		m.help.SetWidth(msg.Width)
	case tickMsg:
		if m.quitting {
			return nil
		}
		if m.running {
			// One timer for the whole UI: the spinner turns on the
			// refresh tick rather than on a timer of its own.
			m.spin, _ = m.spin.Update(spinner.TickMsg{ID: m.spin.ID()})
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
	case m.zoomed && (key.Matches(msg, k.Zoom) || msg.String() == "esc"):
		m.zoomed = false
	case key.Matches(msg, k.Zoom):
		m.zoomed = true
	case m.historyKey(msg):
		return nil // [ ] esc, ↑/↓ on the steps pane, enter while looking back
	case key.Matches(msg, k.Next):
		return m.runNext()
	case key.Matches(msg, k.Lang):
		m.setLang(nextLang(m.lang))
		m.pane(pane{paneExplain, 0}).follow()
	case key.Matches(msg, k.Lesson):
		// The lesson's page, or in the plain tour the list of lessons.
		m.showLesson, m.showGlossary = !m.showLesson, false
		m.pane(pane{paneExplain, 0}).follow()
	case key.Matches(msg, k.Glossary):
		m.showGlossary, m.showLesson = !m.showGlossary, false
		m.pane(pane{paneExplain, 0}).follow()
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		m.help.ShowAll = m.showHelp
	case key.Matches(msg, k.Focus):
		n := len(m.focusables())
		if msg.String() == "shift+tab" {
			m.focus = (m.focus + n - 1) % n
		} else {
			m.focus = (m.focus + 1) % n
		}
	case key.Matches(msg, k.Side):
		if m.demo {
			m.side = 1 - m.side
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

func (m *model) pageLen() int { return max(1, m.h/2) }

func (m *model) quit() tea.Cmd {
	m.quitting = true
	if m.cancelRun != nil {
		m.cancelRun() // the step returns promptly; Run then closes the sessions
	}
	return tea.Quit
}

// fresh says t is a change made since the learner's last step: it is
// highlighted until the next one.
func (m *model) fresh(t time.Time) bool { return !t.IsZero() && t.After(m.stepAt) }

// focused is the pane that scroll keys move.
func (m *model) focused() pane {
	f := m.focusables()
	return f[min(m.focus, len(f)-1)]
}

func (m *model) scrollBy(d int) { m.pane(m.focused()).scroll(d) }

// pane is the component of p, made on first use.
func (m *model) pane(p pane) *scrollPane {
	sp, ok := m.panes[p]
	if !ok {
		sp = newScrollPane()
		m.panes[p] = sp
	}
	return sp
}

// sync sizes every pane of the current layout and gives it its content.
func (m *model) sync() {
	if m.tooSmallNow() || len(m.snaps) == 0 {
		return
	}
	body := m.bodyHeight(len(m.bannerLines(m.w)))
	for _, n := range m.layout(m.w, body).leaves() {
		sp := m.pane(n.pane)
		sp.setSize(n.w, n.h)
		title, lines, top := m.paneContent(n.pane, n.w-4, n.h-2)
		if m.zoomed {
			title += " · " + tr(m.lang, "z/esc: back", "z/esc：还原")
		}
		sp.setContent(title, lines, top)
	}
}

// nextTurn is the session index and step index the next keypress runs;
// ok is false when the tour is over (or failed).
func (m *model) nextTurn() (side, idx int, ok bool) {
	if m.tourErr != nil {
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
	if m.running {
		m.keyWhileWaiting = true
		return nil
	}
	if m.quitting {
		return nil
	}
	m.keyWhileWaiting = false
	if _, _, pending := m.pendingPrediction(); pending {
		// The lesson asks first: show its question rather than run.
		m.showLesson, m.showGlossary = m.lessonDoc, false
		if m.narrow() {
			m.focus = tabExplain
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
	m.running, m.runSide, m.runIdx, m.cancelRun = true, side, idx, cancel
	m.stepAt = m.now()
	m.side = side
	m.showLesson = false // the explanation follows the step; L brings the lesson back
	m.showGlossary = false
	m.pane(pane{paneExplain, 0}).follow()
	m.pane(pane{paneCall, 0}).follow()
	m.refresh()
	return func() tea.Msg {
		out, err := sess.RunNext(ctx)
		return stepDoneMsg{side: side, idx: idx, out: out, err: err}
	}
}

func (m *model) stepDone(msg stepDoneMsg) tea.Cmd {
	m.running, m.keyWhileWaiting = false, false
	if m.cancelRun != nil {
		m.cancelRun()
		m.cancelRun = nil
	}
	m.lastSide, m.lastIdx = msg.side, msg.idx
	if m.demo && msg.err == nil {
		m.planPos++
	}
	if msg.err != nil && !errors.Is(msg.err, steps.ErrTourOver) {
		m.errs[msg.side] = msg.err
		if !m.quitting {
			id := ""
			if st := m.sessions[msg.side].Steps(); msg.idx < len(st) {
				id = string(st[msg.idx].ID)
			}
			m.tourErr = &TourError{Side: m.sessions[msg.side].Config().Role, StepID: id,
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
	return m.tourErr == nil
}

// View implements tea.Model. It is a pure function of the model.
func (m *model) View() tea.View {
	v := tea.NewView(m.screen())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "rdmatour"
	return v
}
