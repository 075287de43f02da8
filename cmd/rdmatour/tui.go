package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/tui"
)

// runTUI hands the sessions to the full-screen UI. Quitting before the end
// (q or Ctrl-C, which the UI reads as a key) interrupts the tour, as
// Ctrl-C does in plain mode: exit status 130 either way.
func runTUI(ctx context.Context, o options, sessions []steps.Runner) error {
	return tuiOutcome(tui.Run(ctx, tui.Options{Sessions: sessions, Lang: o.lang, Docs: docs.Page, Auto: o.auto}))
}

// tuiOutcome reads tui.Run's result the way plain mode's is read: a quit
// before the end is an interruption.
func tuiOutcome(err error) error {
	if errors.Is(err, tui.ErrQuit) {
		return fmt.Errorf("%w: %w", err, context.Canceled)
	}
	return err
}

// withLesson is o for running lesson l in place of what ran: the
// lesson's tour and notify mode; the rdma_cm track, which every lesson
// runs on; --message only where that tour sends it.
func (o options) withLesson(l *steps.Lesson) options {
	o.lesson, o.notify, o.tour, o.track = l, l.Notify, l.Tour, steps.TrackCM
	if messageSent(o.message != "", o.tour, l) != nil {
		o.message = ""
	}
	return o
}

// lessonChosen says the TUI ended because the learner chose a lesson to
// run in the demo, and which.
func lessonChosen(err error) (*steps.Lesson, bool) {
	var restart *tui.LessonRestart
	if errors.As(err, &restart) {
		return restart.Lesson, true
	}
	return nil, false
}
