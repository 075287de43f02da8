// Package tui is rdmatour's terminal UI: a Bubble Tea program that runs a
// tour one verbs call per keypress and renders each Session's snapshot
// (steps, the C call with its actual values, the explanation page, the
// live resources, the message timeline and, on the simulated NIC, the
// packets on the wire).
//
// One root model routes every message; its state is in owned parts
// (parts.go). Each pane is a component (pane.Scroll) that owns its content
// and its scroll offset (a bubbles viewport); after every message Update
// lays the screen out for the terminal's size (layout.go), fills one
// pane.Input from the model (input.go) and gives each pane its size and
// content from it (tui/pane, one file per pane, one row in its table).
// View only draws: it is a pure function of the model. The live state is
// drawn by a table of renderers, one per steps.Section, and scrolls to
// the section the step declares. Explanation pages are Markdown drawn
// from goldmark's AST (termtext). The demo has a presenter layout for a
// projector's 100×30 (the C call beside both sides' live state); z zooms
// the focused pane. No value is cut: lines wider than their pane wrap
// (termtext.WrapAll), tables fit their content (pane/tables.go). Bytes a peer wrote stay
// highlighted until the learner's next step, not for a fixed time.
// Steps run in a tea.Cmd goroutine with a cancellable
// context, and a 200 ms tick re-reads the snapshots, so the UI never
// blocks and the server sees the client's bytes land without a keypress.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// Options configures Run.
type Options struct {
	// Sessions is one session (server or client), or two for the
	// one-terminal demo: [server, client].
	Sessions []steps.Runner
	// Lang is the language to start in (l cycles en → zh → both at run
	// time); anything but zh and both means en.
	Lang text.Lang
	// Docs returns an explanation page (Markdown) for a step id in "en" or
	// "zh"; docs.Page in the real program.
	Docs func(lang, id string) (string, error)

	// Auto runs every step by itself, one after another (--auto), each
	// shown for AutoDelay (0 means 700 ms) before the next starts.
	Auto      bool
	AutoDelay time.Duration

	// Input and Output replace the terminal (tests); nil means stdin/stdout.
	Input  io.Reader
	Output io.Writer
	// Environ replaces os.Environ() (NO_COLOR, TERM, ...); nil means the
	// process environment.
	Environ []string
	// Width and Height set the initial size when there is no terminal to
	// ask (tests); 0 means ask the terminal.
	Width, Height int
}

// ErrQuit is returned by Run when the user quit before the tour ended
// (nothing failed). cmd decides what exit status that deserves.
var ErrQuit = errors.New("tui: quit before the tour ended")

// TourError says that a tour failed; Run returns it so the exit status
// can say so.
type TourError struct {
	Side    steps.Role
	StepID  string
	Explain string // steps.ExplainIn(err, text.EN)
	Err     error
}

func (e *TourError) Error() string {
	return fmt.Sprintf("%s step %s failed: %s", e.Side, e.StepID, e.Explain)
}

func (e *TourError) Unwrap() error { return e.Err }

// Run shows the tour until the user quits or ctx ends. On the way out it
// cancels a running step, closes every session (tearing down whatever is
// still allocated) and restores the terminal. It returns nil when every
// tour finished successfully, a *TourError when one failed, ErrQuit when
// the user quit early, or ctx's error.
func Run(ctx context.Context, opts Options) error {
	m, err := newModel(ctx, opts)
	if err != nil {
		return err
	}
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
	p := tea.NewProgram(m, popts...)
	_, runErr := p.Run()
	verdict := m.verdict()
	m.look.on = false // the summary is about now, not a step looked back at
	m.refresh()       // the last state, devices included, before teardown
	last := append([]steps.Snapshot(nil), m.snaps...)
	closeErr := m.shutdown()
	if m.end.restart != nil && runErr == nil {
		// Both sides start again with the lesson: no summary of this run.
		return m.end.restart
	}
	if runErr == nil || errors.Is(runErr, tea.ErrInterrupted) {
		// The terminal is restored: leave one line saying where the tour got to.
		out := opts.Output
		if out == nil {
			out = os.Stdout
		}
		fmt.Fprintln(out, summaryLine(last, verdict, m.demo, m.replaying(), m.lang))
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case runErr != nil && !errors.Is(runErr, tea.ErrInterrupted):
		return runErr
	}
	if verdict != nil {
		return verdict
	}
	return closeErr
}

// verdict is Run's result, taken before the sessions are closed (closing
// ends a tour, and a step cancelled by quitting fails).
func (m *model) verdict() error {
	if m.end.err != nil {
		return m.end.err
	}
	if !m.allDone() {
		return ErrQuit
	}
	return nil
}

// shutdown cancels a running step and closes every session. Safe twice.
func (m *model) shutdown() error {
	if m.run.cancel != nil {
		m.run.cancel()
	}
	var first error
	for _, s := range m.sessions {
		if _, err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func noColor(environ []string) bool {
	if environ == nil {
		return os.Getenv("NO_COLOR") != ""
	}
	for _, kv := range environ {
		if len(kv) > 9 && kv[:9] == "NO_COLOR=" {
			return true
		}
	}
	return false
}

// tickEvery is how often the snapshots are re-read.
const tickEvery = 200 * time.Millisecond
