package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// TestEndLinesEveryTourAndLesson: every tour and lesson, run on both
// sides, ends the demo screen with "Tour complete · Try next" (or
// "Lesson complete" after the lesson's expected error), and the exit
// line gives each side's result in its tour's words, labelled by side,
// with "via" only where the tour notifies.
func TestEndLinesEveryTourAndLesson(t *testing.T) {
	type tc struct {
		name string
		cfg  steps.Config
	}
	var cases []tc
	for _, d := range steps.Tours() {
		cases = append(cases, tc{"tour/" + d.Name, steps.Config{Tour: d.Kind}})
	}
	for _, l := range steps.Lessons() {
		cases = append(cases, tc{"lesson/" + l.Name, steps.Config{Notify: l.Notify, Lesson: lessonNamed(l.Name)}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Timeout = 10 * time.Second
			sides, err := steps.RunPair(context.Background(), c.cfg, sim.New(sim.Options{}), sim.New(sim.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			srv, cli := sides[steps.Server], sides[steps.Client]
			for _, lang := range []text.Lang{text.EN, text.ZH} {
				m := newTestModel(t, []steps.Runner{srv, cli}, lang, 200, 50)
				banner := ansi.Strip(strings.Join(m.banner(200), "\n"))
				done := text.Text{EN: "Tour complete", ZH: "教程完成"}.In(lang)
				if c.cfg.Lesson != nil && m.end.expected.EN != "" {
					done = text.Text{EN: "Lesson complete", ZH: "课程完成"}.In(lang)
				}
				if !strings.Contains(banner, done) {
					t.Errorf("%v: no %q at the end:\n%s", lang, done, banner)
				}
			}
			line := summaryLine([]steps.Snapshot{srv.Snapshot(), cli.Snapshot()}, nil, true, false, text.EN)
			d, _ := steps.TourOf(srv.Snapshot().Tour)
			if !d.Notifies && strings.Contains(line, "via send") {
				t.Errorf("the %s tour sends no notification: %s", d.Name, line)
			}
			for _, s := range []*steps.Session{srv, cli} {
				snap := s.Snapshot()
				if r := snap.Result; r != nil && !strings.Contains(line, snap.Role.String()+": "+r.Sentence().EN) {
					t.Errorf("the exit line lacks the %s's result %q:\n%s", snap.Role, r.Sentence().EN, line)
				}
			}
		})
	}
}
