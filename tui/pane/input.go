package pane

import (
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// At is one step of one side: the session index (0 in a one-session run;
// 0 server, 1 client in the demo) and the step index.
type At struct{ Side, Idx int }

// Look is the finished step being looked back at (history), if On.
type Look struct {
	On        bool
	Side, Idx int
}

// Page is what the explanation pane shows besides the current step's
// page: the lesson's page or the lesson list (L), the glossary (T).
type Page struct {
	// Docs returns a page's Markdown by language and ID; nil: no pages.
	Docs     func(lang, id string) (string, error)
	Markdown *termtext.Markdown
	// Lesson is the lesson being run ("" for the plain tour); LessonDoc
	// says its page exists.
	Lesson    string
	LessonDoc bool
	// LessonSummary is the lesson's one-line summary (the lesson line).
	LessonSummary text.Text
	ShowLesson    bool
	ShowGlossary  bool
}

// Input is everything a pane draws from, filled once per Update: no pane
// reads the model or a session.
type Input struct {
	Styles Styles
	Lang   text.Lang
	// Demo: both sides in one screen; Narrow: the one-pane-at-a-time
	// layout (the demo's state pane then has no wire section).
	Demo, Narrow bool
	// Snaps and Tours are each side's snapshot (as shown: while looking
	// back, as it was then) and steps.
	Snaps []steps.Snapshot
	Tours [][]steps.Step
	// Cur is the step the call and explanation panes are about; Next the
	// one the next keypress runs, if HasNext.
	Cur     At
	Next    At
	HasNext bool
	// Running: the step Run is running; Spinner is the spinner's frame.
	Running bool
	Run     At
	Spinner string
	// Wait is what the peer must do for the running step to end, when
	// OnPeer (Session.WaitFor, read once when the step started).
	Wait   steps.PeerWait
	OnPeer bool
	Look   Look
	// StepAt is when the learner last ran a step: changes after it are
	// fresh, highlighted until the next step.
	StepAt time.Time
	// AllDone: every tour finished without error.
	AllDone   bool
	Config    steps.Config
	Replaying bool
	Page      Page
	// Edits are the learner's edits of the next step (edits.go).
	Edits Edits
}

func (in *Input) curStep() (side, idx int) { return in.Cur.Side, in.Cur.Idx }

// ownSnapshot is the snapshot of Config's side (the first one shown if
// none is).
func (in *Input) ownSnapshot() steps.Snapshot {
	for _, s := range in.Snaps {
		if s.Role == in.Config.Role {
			return s
		}
	}
	if len(in.Snaps) > 0 {
		return in.Snaps[0]
	}
	return steps.Snapshot{}
}

// nextTurn is the step the next keypress runs; ok is false when none.
func (in *Input) nextTurn() (side, idx int, ok bool) { return in.Next.Side, in.Next.Idx, in.HasNext }

// fresh says t is a change made since the learner's last step.
func (in *Input) fresh(t time.Time) bool { return !t.IsZero() && t.After(in.StepAt) }

func (in *Input) tourOf(side int) []steps.Step {
	if side >= len(in.Tours) {
		return nil
	}
	return in.Tours[side]
}

// peerWait is what the peer must do for step idx of side to end, when the
// wait is on a person: known for the running step only.
func (in *Input) peerWait(side, idx int) (steps.PeerWait, bool) {
	if !in.Running || in.Run != (At{side, idx}) {
		return steps.PeerWait{}, false
	}
	return in.Wait, in.OnPeer
}
