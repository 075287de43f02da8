package steps_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

// Item 4 of issue 21: the C an edited step shows before it runs is the
// call with the edited values marked, not &wr by name; a lesson's preset
// names the lesson (item 6). Steps() keeps what each step showed.
func TestEditedStepShowsItsEditedCallBeforeItRuns(t *testing.T) {
	lesson, _ := steps.ParseLesson("bad-rkey")
	for _, tc := range []struct {
		name  string
		cfg   steps.Config
		side  steps.Role
		step  steps.StepID
		wants []string
	}{
		{"learner's rkey", steps.Config{Edits: mustEdits(t, "post-write.rkey=+1", "post-write.length=16")}, steps.Client, steps.IDPostWrite,
			[]string{"&(struct ibv_send_wr){", ".rkey = rkey + 1 /* you: was rkey */", ".length = 16 /* you: was strlen(buf) + 1 */"}},
		{"lesson's preset", steps.Config{Lesson: lesson}, steps.Client, steps.IDPostWrite,
			[]string{".rkey = mr->lkey /* lesson bad-rkey: was rkey */"}},
		{"conn_param", steps.Config{Edits: mustEdits(t, "accept.rnr_retry_count=3")}, steps.Server, steps.IDAccept,
			[]string{"&(struct rdma_conn_param){", ".rnr_retry_count = 3 /* you: was "}},
		{"QP caps", steps.Config{Edits: mustEdits(t, "create-qp.max_send_wr=4")}, steps.Client, steps.IDCreateQP,
			[]string{".max_send_wr = 4 /* you: was 8 */"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sides, _ := steps.RunPair(context.Background(), tc.cfg, sim.New(sim.Options{}), sim.New(sim.Options{}))
			for _, st := range sides[tc.side].Steps() {
				if st.ID != tc.step {
					if strings.Contains(st.Call, ": was ") {
						t.Errorf("%s, not edited, shows %q", st.ID, st.Call)
					}
					continue
				}
				for _, w := range tc.wants {
					if !strings.Contains(st.Call, w) {
						t.Errorf("%s showed %q; want %q in it", st.ID, st.Call, w)
					}
				}
			}
		})
	}
}

func mustEdits(t *testing.T, ss ...string) steps.Edits {
	t.Helper()
	es, err := steps.ParseEdits(ss)
	if err != nil {
		t.Fatal(err)
	}
	return es
}
