package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// The send queue's lessons end as predicted under the slot rule of the
// NIC in use: rxe's (a slot frees when its WR is acknowledged) or the
// strict profile's, the spec's (when a completion of it or a later WR
// is polled).
func TestSendQueueLessonsByProfile(t *testing.T) {
	for _, tt := range []struct {
		lesson  string
		profile sim.Profile
		// actual is the prediction's choice that happened.
		actual int
		// want: "side/step-id" → text the expected failure contains.
		want      map[string]string
		delivered bool
		// note is in the prediction's step outcome (English).
		note string
	}{
		{"never-signaled", sim.ProfileRxe, 0, map[string]string{}, true, "rxe frees a WR's slot as soon as the WR is acknowledged"},
		{"never-signaled", sim.ProfileStrict, 1, map[string]string{
			"client/post-unsignaled": "cannot allocate memory",
			"client/post-write":      "cannot allocate memory",
			"client/post-send":       "cannot allocate memory",
			"server/wait-notify":     "RDMA_CM_EVENT_DISCONNECTED",
		}, false, "the strict profile"},
		{"signal-every-nth", sim.ProfileRxe, 1, map[string]string{}, true, "3 completions, one per signaled WRITE"},
		{"signal-every-nth", sim.ProfileStrict, 1, map[string]string{}, true, "3 completions, one per signaled WRITE"},
	} {
		t.Run(tt.lesson+"/"+tt.profile.String(), func(t *testing.T) {
			l, err := steps.LessonByName(tt.lesson)
			if err != nil {
				t.Fatal(err)
			}
			cfg := steps.Config{Notify: l.Notify, Message: "lesson " + tt.lesson, Lesson: &l}
			p := newPairOn(t, sim.Options{Profile: tt.profile}, cfg, cfg)
			p.runTurns(t, -1)
			pred := p.cli.Prediction()
			if pred == nil || !pred.Revealed || pred.Actual != tt.actual {
				t.Fatalf("prediction %+v, want choice %d to have happened", pred, tt.actual)
			}
			if !strings.Contains(pred.Question.EN, map[bool]string{true: "strict profile", false: "rxe's rule"}[tt.profile == sim.ProfileStrict]) {
				t.Errorf("the question does not say which rule this NIC has: %s", pred.Question.EN)
			}
			checkExpectedFailures(t, p, tt.want, func(key string, st steps.StepStatus) {
				if st.ID == pred.At && !strings.Contains(st.Outcome.Note.EN, tt.note) {
					t.Errorf("%s's note lacks %q: %s", key, tt.note, st.Outcome.Note.EN)
				}
			})
			if got := p.srv.Snapshot().Result != nil; got != tt.delivered {
				t.Errorf("server has a result: %v, want %v", got, tt.delivered)
			}
		})
	}
}
