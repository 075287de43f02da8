package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/tui"
)

// A lesson chosen in the demo's TUI runs on its own tour with its notify
// mode, whatever the demo ran before; a track it cannot run with goes.
func TestWithLessonRunsTheLessonsTour(t *testing.T) {
	for _, c := range []struct {
		args   []string
		lesson string
	}{
		{[]string{"demo", "--tour", "read"}, "bad-rkey"},
		{[]string{"demo", "--track", "manual"}, "no-remote-read"},
		{[]string{"demo", "--notify", "imm"}, "doorbell-ordering"},
		{[]string{"demo", "--lesson", "no-recv"}, "atomic-unaligned"},
		{[]string{"demo", "--message", "hi"}, "no-remote-read"},
	} {
		o, err := parseArgs(c.args, func(string) string { return "" }, nil)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		l, err := steps.LessonByName(c.lesson)
		if err != nil {
			t.Fatal(err)
		}
		got := o.withLesson(&l)
		cfg := got.config(steps.Server)
		if err := cfg.Validate(); err != nil {
			t.Errorf("%v then lesson %s: %v", c.args, c.lesson, err)
		}
		if messageSent(cfg.Message != "", cfg.Tour, cfg.Lesson) != nil {
			t.Errorf("%v then lesson %s: --message %q kept on a tour that sends none", c.args, c.lesson, cfg.Message)
		}
		if cfg.Lesson == nil || cfg.Lesson.Name != c.lesson || cfg.Tour != l.Tour || cfg.Notify != l.Notify || cfg.Track != steps.TrackCM {
			t.Errorf("%v then lesson %s: config %+v", c.args, c.lesson, cfg)
		}
	}
}

func TestLessonChosen(t *testing.T) {
	l, _ := steps.LessonByName("no-recv")
	if got, ok := lessonChosen(fmt.Errorf("run: %w", &tui.LessonRestart{Lesson: &l})); !ok || got.Name != "no-recv" {
		t.Errorf("a wrapped LessonRestart: %v %v", got, ok)
	}
	if _, ok := lessonChosen(errors.New("other")); ok {
		t.Error("another error read as a lesson to run")
	}
	if _, ok := lessonChosen(nil); ok {
		t.Error("nil read as a lesson to run")
	}
}
