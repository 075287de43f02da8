package steps_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// TestEditQuestionChoices: the choices follow the steps left: before
// rdma_connect an rdma_cm event can still surprise, after post-write
// none is awaited on the client any more. The edit question has no step
// of its own (At is empty: the step's page stays the step's).
func TestEditQuestionChoices(t *testing.T) {
	tests := []struct {
		at   steps.StepID
		want []string
	}{
		{"connect", []string{"nothing breaks", "rdma_connect itself returns an error", "a later call", "a completion arrives", "rdma_cm delivers"}},
		{"post-write", []string{"nothing breaks", "ibv_post_send itself returns an error", "a later call", "a completion arrives"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.at), func(t *testing.T) {
			p := newPair(t, steps.NotifySend, "predict")
			runPlanUntil(t, p, steps.Client, tt.at)
			if err := p.cli.AskAboutEdit(); err != nil {
				t.Fatal(err)
			}
			pred := p.cli.Prediction()
			if !pred.Pending() || pred.At != "" {
				t.Fatalf("%+v: want pending, no At", pred)
			}
			var got []string
			for _, c := range pred.Choices {
				got = append(got, c.EN)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("choices %q, want %d", got, len(tt.want))
			}
			for i := range tt.want {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("choice %d = %q, want it to say %q", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestEditQuestionJudged: asked before an unedited step, the right answer
// is "nothing breaks", revealed by the last step, and the verdict says so.
func TestEditQuestionJudged(t *testing.T) {
	for _, pickRight := range []bool{true, false} {
		p := newPair(t, steps.NotifySend, "predict")
		runPlanUntil(t, p, steps.Client, "post-write")
		if err := p.cli.AskAboutEdit(); err != nil {
			t.Fatal(err)
		}
		pick := 0
		if !pickRight {
			pick = 1
		}
		if err := p.cli.Predict(pick); err != nil {
			t.Fatal(err)
		}
		if p.cli.Prediction().Revealed {
			t.Fatal("revealed before any step ran")
		}
		p.runTurns(t, -1)
		pred := p.cli.Prediction()
		if !pred.Revealed || pred.Actual != 0 || pred.Right() != pickRight {
			t.Fatalf("pick %d: revealed=%v actual=%d right=%v", pick, pred.Revealed, pred.Actual, pred.Right())
		}
	}
}

// TestEditQuestionInALesson: a lesson's own question stays the only one.
func TestEditQuestionInALesson(t *testing.T) {
	p := newLessonPair(t, steps.NotifySend, "predict", "bad-rkey", 0)
	if err := p.cli.AskAboutEdit(); !errors.Is(err, steps.ErrLessonAsks) {
		t.Fatalf("AskAboutEdit in a lesson = %v, want ErrLessonAsks", err)
	}
}

// runPlanUntil runs the demo plan until side's next step is id.
func runPlanUntil(t *testing.T, p *pair, side steps.Role, id steps.StepID) {
	t.Helper()
	for i := range p.plan {
		s := p.sessions[side]
		if st := s.Steps(); s.Next() < len(st) && st[s.Next()].ID == id {
			return
		}
		p.runTurns(t, i+1)
	}
	t.Fatalf("%s never reached %s", side, id)
}

// TestEditQuestionOnAFailingEdit: the rkey off by one makes the WRITE's
// completion fail; the call itself succeeds. The completion choice is
// what happened, revealed by the step that failed.
func TestEditQuestionOnAFailingEdit(t *testing.T) {
	cli, err := steps.ParseEdits([]string{"post-write.rkey=+1"})
	if err != nil {
		t.Fatal(err)
	}
	p := newPairOfEach(t, steps.Config{Notify: steps.NotifySend, Message: "m"}, steps.Config{Notify: steps.NotifySend, Message: "m", Edits: cli})
	runPlanUntil(t, p, steps.Client, "post-write")
	if err := p.cli.AskAboutEdit(); err != nil {
		t.Fatal(err)
	}
	if err := p.cli.Predict(1); err != nil { // "ibv_post_send itself returns an error": wrong
		t.Fatal(err)
	}
	if failed := runUntilFailure(p); failed != "poll-write" {
		t.Fatalf("the client failed at %q, want poll-write", failed)
	}
	pred := p.cli.Prediction()
	if !pred.Revealed || pred.Actual < 0 || !strings.Contains(pred.Choices[pred.Actual].EN, "a completion arrives") || pred.Right() {
		t.Fatalf("revealed=%v actual=%d right=%v choices=%q", pred.Revealed, pred.Actual, pred.Right(), pred.Choices)
	}
	if note := noteOf(p.cli, "poll-write"); !strings.Contains(note, pred.Verdict().EN) {
		t.Errorf("poll-write's note %q lacks the verdict %q", note, pred.Verdict().EN)
	}
}
