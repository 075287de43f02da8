package main

import (
	"errors"
	"fmt"
	"strings"
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
		{[]string{"demo", "--record", "/tmp/x.rec", "--pcap", "/tmp/x.pcap"}, "bad-rkey"},
	} {
		o, err := parseArgs(c.args, func(string) string { return "" }, nil)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		l, err := steps.LessonByName(c.lesson)
		if err != nil {
			t.Fatal(err)
		}
		line := restartLine(o, &l).EN
		got := o.withLesson(&l)
		if got.record != "" || got.pcap != "" {
			t.Errorf("%v then lesson %s: the lesson's run would overwrite %q %q", c.args, c.lesson, got.record, got.pcap)
		}
		if o.record != "" && !strings.Contains(line, "--record "+o.record+" keeps the run before") {
			t.Errorf("restart line %q does not say where the first run went", line)
		}
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
