package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/progress"
)

// seedPredictions writes a progress file with three lessons predicted:
// bad-rkey wrong last time, no-recv right long ago, htonl-address right
// lately.
func seedPredictions(t *testing.T, state string) {
	t.Helper()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 10, 0, 0, 0, time.UTC) }
	_, err := progress.Store{Dir: filepath.Join(state, "rdmatour")}.Update(func(f *progress.File) {
		f.Predicted("bad-rkey", false, day(5))
		f.Predicted("no-recv", true, day(1))
		f.Predicted("htonl-address", true, day(20))
		f.Predicted("htonl-address", true, day(21))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReviewNothingYet: with no prediction made, review says so and how
// to make one, in both languages, and runs nothing.
func TestReviewNothingYet(t *testing.T) {
	l := newLearner(t)
	code, out, errs := l.run("review", "--backend", "sim", "--plain")
	if code != 0 || !strings.Contains(out, "Nothing to review yet") || !strings.Contains(out, "rdmatour demo --lesson NAME") || strings.Contains(out, "[1/") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
	if _, out, _ := l.run("review", "--lang", "zh"); !strings.Contains(out, "还没有可以复习的") {
		t.Errorf("in Chinese:\n%s", out)
	}
}

// TestReviewBadInput: review picks the lessons itself, and a bad flag is
// a usage error (exit 2) before anything runs.
func TestReviewBadInput(t *testing.T) {
	l := newLearner(t)
	seedPredictions(t, l.state)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"review", "--lesson", "no-recv"}, "review picks the lessons itself"},
		{[]string{"review", "--lesson=no-recv"}, "review picks the lessons itself"},
		{[]string{"review", "--backend", "nope"}, "rdmatour review: "},
	} {
		code, out, errs := l.run(tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) || strings.Contains(out, "[1/") {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s%s", tt.args, code, tt.want, out, errs)
		}
	}
	if code, out, _ := l.run("review", "--help"); code != 0 || !strings.Contains(out, "Usage: rdmatour review") {
		t.Errorf("--help: exit %d:\n%s", code, out)
	}
}

// TestReviewRunsTwoLessons: without a terminal the two picks run one
// after the other (their questions skipped, as a demo's are), the
// reasons first.
func TestReviewRunsTwoLessons(t *testing.T) {
	l := newLearner(t)
	seedPredictions(t, l.state)
	code, out, errs := l.run("review", "--backend", "sim", "--plain", "--brief")
	for _, want := range []string{"bad-rkey: your last prediction was wrong (2026-11-05); right 0, wrong 1", "no-recv: right last time, and not predicted since (2026-11-01)",
		"lesson bad-rkey:", "lesson no-recv:"} {
		if !strings.Contains(out, want) {
			t.Errorf("review lacks %q (exit %d):\n%s%s", want, code, out, errs)
		}
	}
	if strings.Contains(out, "lesson htonl-address") || strings.Index(out, "lesson bad-rkey:") > strings.Index(out, "lesson no-recv:") {
		t.Errorf("review ran the wrong lessons, or out of order:\n%s", out)
	}
	if _, zh, _ := l.run("review", "--backend", "sim", "--plain", "--brief", "--lang", "zh"); !strings.Contains(zh, "bad-rkey：上一次预测错了（2026-11-05）") {
		t.Errorf("in Chinese:\n%s", zh)
	}
}

// TestReviewAsksAgainInTmux: in a terminal, review asks each picked
// lesson's question again and counts the new predictions: bad-rkey and
// no-recv are asked, htonl-address is not.
func TestReviewAsksAgainInTmux(t *testing.T) {
	p := newTermPair(t)
	state := t.TempDir()
	seedPredictions(t, state)
	cmd := binPath + " review --backend sim --plain --brief; echo EXIT=$?; exec sleep 900"
	p.tmux("new-session", "-d", "-s", "review", "-x", "160", "-y", "50", "-e", "LANG=C.UTF-8", "-e", "XDG_STATE_HOME="+state, cmd)
	asked := 0
	deadline := time.Now().Add(90 * time.Second)
	for {
		s := p.screen("review")
		if strings.Contains(s, "EXIT=") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("review did not end:\n%s", s)
		}
		if last := lastScreenLine(s); strings.Contains(last, "your prediction (1-") {
			asked++
			p.tmux("send-keys", "-t", "review", "1", "Enter")
			time.Sleep(200 * time.Millisecond)
			continue
		}
		p.key("review", "Enter")
		time.Sleep(20 * time.Millisecond)
	}
	f, _, err := progress.Store{Dir: filepath.Join(state, "rdmatour")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	bad, norecv, htonl := f.Predictions["bad-rkey"], f.Predictions["no-recv"], f.Predictions["htonl-address"]
	today := time.Now().UTC().Format("2006-01-02")
	if asked < 2 || bad.Right+bad.Wrong < 2 || norecv.Right+norecv.Wrong < 2 || htonl.Right != 2 ||
		bad.Last.Format("2006-01-02") != today || norecv.Last.Format("2006-01-02") != today {
		t.Errorf("asked %d times; predictions now %+v (%s)", asked, f.Predictions, os.Getenv("LANG"))
	}
}

// lastScreenLine is the last non-empty line of a screen.
func lastScreenLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	return lines[len(lines)-1]
}
