package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// Each lesson asks before it runs, and the answering step judges the pick
// by what happened on this run: picking what the lesson teaches is right,
// picking anything else is wrong, and the note says which.
func TestLessonPredictions(t *testing.T) {
	tests := []struct {
		lesson string
		rnr    uint8
		// answer is the label of the choice that must happen, per side
		// ("" = that side asks nothing).
		server, client string
	}{
		{"no-recv", 0, "RDMA_CM_EVENT_DISCONNECTED (the client hangs up)", "IBV_WC_RNR_RETRY_EXC_ERR (RNR retry counter exceeded)"},
		{"no-recv", 7, "the client's message arrives and the RECV completes", "IBV_WC_SUCCESS (success)"},
		{"bad-rkey", 0, "IBV_WC_WR_FLUSH_ERR (Work Request Flushed Error)", "IBV_WC_REM_ACCESS_ERR (remote access error)"},
		{"out-of-bounds", 0, "IBV_WC_WR_FLUSH_ERR (Work Request Flushed Error)", "IBV_WC_REM_ACCESS_ERR (remote access error)"},
		{"no-remote-write", 0, "IBV_WC_WR_FLUSH_ERR (Work Request Flushed Error)", "IBV_WC_REM_ACCESS_ERR (remote access error)"},
		{"htonl-address", 0, "IBV_WC_WR_FLUSH_ERR (Work Request Flushed Error)", "IBV_WC_REM_ACCESS_ERR (remote access error)"},
		{"post-before-connect", 0, "", "ibv_post_send fails with EINVAL"},
		{"doorbell-ordering", 0, "the whole message", ""},
	}
	for _, tt := range tests {
		for _, pickRight := range []bool{true, false} {
			name := tt.lesson
			if tt.rnr != 0 {
				name += "/rnr7"
			}
			if !pickRight {
				name += "/wrong"
			}
			t.Run(name, func(t *testing.T) {
				l, _ := steps.LessonByName(tt.lesson)
				p := newLessonPair(t, l.Notify, "predict", tt.lesson, tt.rnr)
				sides := map[*steps.Session]string{p.srv: tt.server, p.cli: tt.client}
				for s, answer := range sides {
					pred := s.Prediction()
					if (pred == nil) != (answer == "") {
						t.Fatalf("%s: prediction %+v, want one = %v", s.Config().Role, pred, answer != "")
					}
					if pred == nil {
						continue
					}
					if !pred.Pending() || len(pred.Choices) < 3 || len(pred.Choices) > 4 {
						t.Fatalf("%s: %+v: want 3-4 choices, pending", s.Config().Role, pred)
					}
					idx := choiceIndex(t, pred, answer)
					if strings.Contains(pred.Question.EN, answer) {
						t.Errorf("the question gives the answer away: %q", pred.Question.EN)
					}
					pick := idx
					if !pickRight {
						pick = (idx + 1) % len(pred.Choices)
					}
					if err := s.Predict(pick); err != nil {
						t.Fatal(err)
					}
				}
				p.runTurns(t, -1)
				for s, answer := range sides {
					if answer == "" {
						continue
					}
					pred := s.Prediction()
					if !pred.Revealed || pred.Actual < 0 || pred.Choices[pred.Actual].EN != answer {
						t.Errorf("%s: revealed=%v actual=%d, want %q; step %s: %q", s.Config().Role, pred.Revealed, pred.Actual, answer, pred.At, failureOf(s, pred.At))
						continue
					}
					if pred.Right() != pickRight {
						t.Errorf("%s: Right() = %v with pick %d", s.Config().Role, pred.Right(), pred.Picked)
					}
					note := noteOf(s, pred.At)
					if want := pred.Verdict().EN; want == "" || !strings.Contains(note, want) {
						t.Errorf("%s: step %s's note %q lacks the verdict %q", s.Config().Role, pred.At, note, want)
					}
					// ✓ or ✗, and a wrong pick says what it would have
					// meant and why what happened did.
					v, mark := pred.Verdict().EN, map[bool]string{true: "✓", false: "✗"}[pickRight]
					if !strings.HasPrefix(v, mark) || pred.Mark() != mark {
						t.Errorf("%s: verdict %q, mark %q, want %s", s.Config().Role, v, pred.Mark(), mark)
					}
					for _, i := range []int{pred.Picked, pred.Actual} {
						if m := pred.Means[i].EN; !pickRight && m != "" && !strings.Contains(v, m) {
							t.Errorf("%s: verdict %q lacks what %q means: %q", s.Config().Role, v, pred.Choices[i].EN, m)
						}
					}
					if err := s.Predict(0); err == nil {
						t.Errorf("%s: a prediction was changed after the answer", s.Config().Role)
					}
				}
			})
		}
	}
}

func choiceIndex(t *testing.T, p *steps.PredictionState, label string) int {
	t.Helper()
	for i, c := range p.Choices {
		if c.EN == label {
			if c.ZH == "" {
				t.Errorf("choice %q has no Chinese", label)
			}
			return i
		}
	}
	t.Fatalf("no choice %q in %+v", label, p.Choices)
	return -1
}

func noteOf(s *steps.Session, id string) string {
	for _, st := range s.Snapshot().Steps {
		if st.ID == id && st.Outcome != nil {
			return st.Outcome.Note.EN
		}
	}
	return ""
}

func TestPredictRefusesBadChoices(t *testing.T) {
	p := newLessonPair(t, steps.NotifySend, "x", "bad-rkey", 0)
	if err := p.cli.Predict(9); err == nil {
		t.Error("choice 10 of 4 accepted")
	}
	plain := newPair(t, steps.NotifySend, "x")
	if err := plain.cli.Predict(0); err != steps.ErrNoPrediction {
		t.Errorf("plain tour: %v", err)
	}
	p.cli.SkipPrediction()
	if p.cli.Prediction().Pending() {
		t.Error("still pending after SkipPrediction")
	}
}

func failureOf(s *steps.Session, id string) string {
	for _, st := range s.Snapshot().Steps {
		if st.ID == id && st.Outcome != nil {
			return st.Outcome.Failure.EN
		}
	}
	return "(did not run)"
}
