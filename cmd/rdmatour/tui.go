package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
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
// lesson's tour, notify mode and track; --message only where that tour
// sends it. The files of --record and --pcap hold the run before: the
// lesson's run writes none.
func (o options) withLesson(l *steps.Lesson) options {
	o.lesson, o.notify, o.tour, o.track = l, l.Notify, l.Tour, l.Track
	o.record, o.pcap = "", ""
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

// restartLine is what the terminal keeps between the run the learner
// left and the lesson's: both sides start again, and where the files of
// the first run are.
func restartLine(o options, l *steps.Lesson) text.Text {
	t := text.Text{EN: "rdmatour demo: starting both sides again with --lesson " + l.Name,
		ZH: "rdmatour demo：两端都以 --lesson " + l.Name + " 重新开始"}
	for _, f := range []struct{ flag, path string }{{"--record", o.record}, {"--pcap", o.pcap}} {
		if f.path != "" {
			t.EN += fmt.Sprintf("; %s %s keeps the run before, the lesson's run is not written", f.flag, f.path)
			t.ZH += fmt.Sprintf("；%s %s 保存的是之前那次运行，课程这次不写入", f.flag, f.path)
		}
	}
	return t
}
