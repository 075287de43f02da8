package steps_test

import (
	"context"
	"errors"
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
			// (" ^ 0xff" after mr->lkey, the 1 run in 256 the keys collide: editTarget)
			[]string{".rkey = mr->lkey", " /* lesson bad-rkey: was rkey */"}},
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

// Item 2 of issue 21: run=before:connect moves the client's WRITE in
// front of rdma_connect, where it waits for what connect waits for and
// shows 0 for the remote_info it does not have yet; the manual track,
// which has no connect step, refuses it with the reason.
func TestMovedWriteRunsBeforeConnect(t *testing.T) {
	cfg := steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}), Edits: mustEdits(t, "post-write.run=before:connect")}
	cfg.Server = mustAddrPort(t, "127.0.0.1:7471")
	s, err := steps.NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []steps.StepID
	for _, st := range s.Steps() {
		ids = append(ids, st.ID)
	}
	at := func(id steps.StepID) int {
		for i, x := range ids {
			if x == id {
				return i
			}
		}
		return -1
	}
	if w, c := at(steps.IDPostWrite), at(steps.IDConnect); w < 0 || w != c-1 {
		t.Fatalf("post-write at %d, connect at %d: %v", w, c, ids)
	}
	sides, err := steps.RunPair(context.Background(), steps.Config{Edits: cfg.Edits}, sim.New(sim.Options{}), sim.New(sim.Options{}))
	if got := editOutcome(err); got != "client/post-write errno EINVAL" {
		t.Fatalf("outcome %q", got)
	}
	if out := sides[steps.Client].Snapshot(); !strings.Contains(out.Steps[at(steps.IDPostWrite)].Outcome.Call, ".remote_addr = 0x0, .rkey = 0x0") {
		t.Errorf("the moved WRITE's C: %s", out.Steps[at(steps.IDPostWrite)].Outcome.Call)
	}
	manual := cfg
	manual.Track = steps.TrackManual
	var ee *steps.EditError
	if _, err := steps.NewSession(manual); !errors.As(err, &ee) || !strings.Contains(err.Error(), "connect-manual") {
		t.Errorf("on the manual track: %v", err)
	}
}
