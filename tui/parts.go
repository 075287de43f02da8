package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/spinner"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// The root model's parts: each owns one job's state.

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
	lastTab  int // the narrow layout's tab shown while the call pane has the focus
	side     int // the side shown in the narrow demo layout
	showHelp bool
	// focusMoved: the learner pressed Tab. Until then the focus follows
	// the layout to the explanation, where a learner reads first.
	focusMoved bool
	// help is the help screen (?), scrolled like a pane.
	help *pane.Scroll
	// spot is what came forward by itself (spot.go).
	spot spotlight
	// zoomed shows the focused pane alone (z; z or esc goes back).
	zoomed bool
	// panes are the screen's panes, each with its content and its own
	// scroll offset; Update fills them, View only draws them.
	panes map[slot]*pane.Scroll
	// lib is the page index and page view (P; L in the plain tour): open,
	// it covers the panes.
	lib *pane.Library
}

// tourEnd is how the tour ended: each side's error, the one that stopped
// the tour, and the sentences of the end banner (set by sync).
type tourEnd struct {
	errs []error
	err  *TourError
	// restart: the learner chose a lesson to run in the demo; Run
	// returns it, and both sides start again.
	restart *LessonRestart
	// hasResult: a side reached its result; resultOnly: the result's
	// sentence is the whole banner (the read and atomic tours).
	hasResult, resultOnly bool
	result                text.Text
	expected              text.Text // the lesson's first expected error
	next                  text.Text // what to try next
}
