package steps

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Every lesson on every tour, track, side and rnr_retry_count starts
// cleanly or is refused with the documented reason; its edits never name
// a step the tour lacks (that would be an UnknownStepError here, not a
// lesson that silently changes nothing).
func TestEveryLessonOnEveryTour(t *testing.T) {
	for _, l := range Lessons() {
		for _, tour := range Tours() {
			for _, track := range []Track{TrackCM, TrackManual} {
				for _, role := range []Role{Server, Client} {
					for _, rnr := range []uint8{0, MaxRNRRetry} {
						cfg := Config{Role: role, Tour: tour.Kind, Track: track, Lesson: &l, RNRRetry: rnr,
							Provider: sim.New(sim.Options{})}
						if role == Client {
							cfg.Server = netip.MustParseAddrPort("127.0.0.1:7471")
						}
						checkLessonStart(t, cfg)
					}
				}
			}
		}
	}
}

// checkLessonStart: NewSession either builds the lesson's tour, or
// refuses cfg with a ConfigError saying which tour or track it is for.
func checkLessonStart(t *testing.T, cfg Config) {
	t.Helper()
	name := cfg.Lesson.Name + " on " + cfg.Tour.String() + "/" + cfg.Track.String() + "/" + cfg.Role.String()
	s, err := NewSession(cfg)
	var unknown *UnknownStepError
	var ce *ConfigError
	switch {
	case errors.As(err, &unknown):
		t.Errorf("%s: %v", name, err)
	case err == nil:
		if s.cfg.Tour != cfg.Lesson.Tour {
			t.Errorf("%s: runs the %s tour, the lesson's is %s", name, s.cfg.Tour, cfg.Lesson.Tour)
		}
	case !errors.As(err, &ce):
		t.Errorf("%s: %v, want a clean start or a ConfigError", name, err)
	case !strings.Contains(ce.Reason.EN, "cannot be combined"):
		t.Errorf("%s: refused with %q, want the \"cannot be combined\" reason", name, ce.Reason.EN)
	case cfg.Tour == cfg.Lesson.Tour && cfg.Track == TrackCM:
		t.Errorf("%s: its own tour refused it: %v", name, err)
	}
}

// A tour edit that names a step the tour lacks is an error, not a no-op.
func TestTourEditUnknownStep(t *testing.T) {
	l := Lesson{Name: "typo", edit: func(_ Config, t *tourEdit) {
		t.edit("post-wirte", func(*Step) {})
		t.remove(IDPostSend) // skipped: the first error stands
	}}
	_, err := l.apply(Config{Role: Client}, clientTour(NotifySend))
	var unknown *UnknownStepError
	if !errors.As(err, &unknown) || unknown.ID != "post-wirte" || unknown.Op != "edit" {
		t.Fatalf("apply = %v, want an UnknownStepError for post-wirte", err)
	}
	for _, op := range []func(*tourEdit){
		func(e *tourEdit) { e.insertAfter("nope", Step{}) },
		func(e *tourEdit) { e.remove("nope") },
		func(e *tourEdit) { e.replace("nope", Step{}) },
	} {
		e := newTourEdit(Server, serverTour())
		op(e)
		if _, err := e.Result(); !errors.As(err, &unknown) {
			t.Errorf("edit of an unknown step: %v, want an UnknownStepError", err)
		}
	}
}

// Every lesson asks a question on at least one side and has its page in
// both languages: forgetting either fails here, not in front of a
// learner.
func TestEveryLessonAsksAndHasPages(t *testing.T) {
	for _, l := range Lessons() {
		asked := false
		for _, role := range []Role{Server, Client} {
			for _, rnr := range []uint8{0, MaxRNRRetry} {
				cfg := Config{Role: role, Tour: l.Tour, Notify: l.Notify, Track: l.Track, RNRRetry: rnr, Lesson: &l}
				p := l.prediction(cfg)
				if p == nil {
					continue
				}
				asked = true
				tour, err := l.apply(cfg, baseTour(cfg))
				if err != nil || indexOf(tour, p.At) < 0 {
					t.Errorf("%s (%s): the question is answered at %s, which its tour lacks (%v)", l.Name, role, p.At, err)
				}
			}
		}
		if !asked {
			t.Errorf("lesson %s asks no question on either side", l.Name)
		}
		for _, lang := range []string{"en", "zh"} {
			if _, err := os.Stat(filepath.Join("..", "docs", lang, "lesson-"+l.Name+".md")); err != nil {
				t.Errorf("lesson %s: no docs/%s/lesson-%s.md", l.Name, lang, l.Name)
			}
		}
	}
}
