package main

import (
	"time"

	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// recordProgress is the end-of-run hook: a live tour that reached its end
// counts as done (a lesson's expected error included), and a prediction
// the learner made and saw answered counts right or wrong. Replays
// count nothing. Where there is no progress directory (no HOME) nothing
// is recorded; a file that cannot be written is said on stderr, and the
// run's own exit status stands.
func recordProgress(c console, lang text.Lang, sessions []steps.Runner) {
	var snaps []steps.Snapshot
	for _, r := range sessions {
		if s, live := r.(*steps.Session); live {
			snaps = append(snaps, s.Snapshot())
		}
	}
	if len(snaps) == 0 {
		return
	}
	dir, err := progress.DefaultDir(c.getenv)
	if err != nil {
		return
	}
	r := exerciseRun{c: c, lang: lang, store: progress.Store{Dir: dir}}
	now := time.Now()
	r.update(func(f *progress.File) {
		for _, snap := range snaps {
			countRun(f, snap, now)
		}
	})
}

// countRun records one side's run, ended at the time given.
func countRun(f *progress.File, snap steps.Snapshot, at time.Time) {
	if p := snap.Prediction; p != nil && p.Revealed && !p.Skipped && p.Picked >= 0 {
		f.Predicted(snap.Lesson, p.Right(), at)
	}
	if !snap.Done || (snap.Failed && !endedAsLessonExpects(snap)) {
		return
	}
	if snap.Lesson != "" {
		f.CompleteLesson(snap.Lesson)
		return
	}
	f.CompleteTour(snap.Tour.String())
}

// endedAsLessonExpects says a failed run ended with the error its lesson
// is about.
func endedAsLessonExpects(snap steps.Snapshot) bool {
	for i := len(snap.Steps) - 1; i >= 0; i-- {
		if out := snap.Steps[i].Outcome; out != nil {
			return out.Expected
		}
	}
	return false
}
