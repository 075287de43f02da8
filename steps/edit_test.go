package steps_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs/sim"
)

func TestParseEdit(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // "" = valid
		check   func(steps.Edit) bool
	}{
		{"post-write.rkey=+1", "", func(e steps.Edit) bool { return e.Value.Rel && e.Value.Num == 1 && e.AnySide }},
		{"post-write.rkey=lkey", "", func(e steps.Edit) bool { return e.Value.Ref == "lkey" }},
		{"post-write.rkey=0x1234", "", func(e steps.Edit) bool { return e.Value.Num == 0x1234 && e.Value.Ref == "" }},
		{"reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE", "", func(e steps.Edit) bool { return e.Value.Abs && e.Value.Num == 1 }},
		{"server:reg-mr-data.access=-remote_write", "", func(e steps.Edit) bool { return !e.AnySide && e.Side == steps.Server && e.Value.Del == 2 }},
		{"post-write.opcode=SEND", "", func(e steps.Edit) bool { return e.Value.Num == 2 }},
		{"post-write.remote_addr=-8", "", func(e steps.Edit) bool { return e.Value.Num == -8 }},
		{"connect.rnr_retry_count=7", "", func(e steps.Edit) bool { return e.Value.Num == 7 }},
		{"post-write.message=hi there", "", func(e steps.Edit) bool { return e.Value.Text == "hi there" }},
		{"connect.rnr_retry_count=8", "outside 0..7", nil},
		{"create-cq.cqe=1000000000", "refused", nil},
		{"post-write.send_flags=0", "refused", nil},
		{"post-write.send_flags=-SIGNALED", "refused", nil},
		{"post-write.send_flags=+FENCE", "", func(e steps.Edit) bool { return e.Value.Add == 1 }},
		{"post-write.opcode=IBV_WR_ATOMIC_FETCH_AND_ADD", "not one of", nil},
		{"post-write.nope=1", "no field", nil},
		{"nope.rkey=1", "nothing to edit", nil},
		{"post-write", "STEP.FIELD=VALUE", nil},
		{"post-write.rkey=banana", "not a 32-bit key", nil},
		{"peer:post-write.rkey=1", "not a side", nil},
		{"reg-mr-data.access=+LOCAL_WRITE|REMOTE_READ", "not both", nil},
	}
	for _, tt := range tests {
		e, err := steps.ParseEdit(tt.in)
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.in, err)
			} else if !tt.check(e) {
				t.Errorf("%s: parsed %+v", tt.in, e)
			}
			continue
		}
		var ee *steps.EditError
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: error %v, want an EditError with %q", tt.in, err, tt.wantErr)
		}
	}
}

// A bad edit lists what is valid.
func TestEditErrorsListValid(t *testing.T) {
	_, err := steps.ParseEdit("post-write.nope=1")
	if !strings.Contains(err.Error(), "rkey") || !strings.Contains(err.Error(), "remote_addr") {
		t.Errorf("error %q lists no fields", err)
	}
	_, err = steps.ParseEdit("nope.rkey=1")
	if !strings.Contains(err.Error(), "post-write") {
		t.Errorf("error %q lists no steps", err)
	}
}

// Every field has words in both languages and a range to show.
func TestEditFieldsCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range steps.EditFields() {
		if seen[f.Key()] {
			t.Errorf("%s twice", f.Key())
		}
		seen[f.Key()] = true
		if f.Explain.EN == "" || f.Explain.ZH == "" || f.CName == "" || f.Range() == "" {
			t.Errorf("%s: missing text %+v", f.Key(), f)
		}
	}
}

func FuzzParseEdit(f *testing.F) {
	for _, s := range []string{"post-write.rkey=+1", "client:reg-mr-data.access=LOCAL_WRITE|REMOTE_WRITE", "create-cq.cqe=0x10", "a.b=c", "=", ":.="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := steps.ParseEdit(s)
		if err != nil {
			var ee *steps.EditError
			if !errors.As(err, &ee) {
				t.Fatalf("%q: error %T is not an EditError", s, err)
			}
			return
		}
		// What parsed prints back to an edit that parses the same.
		again, err := steps.ParseEdit(e.String())
		if err != nil || again.Key() != e.Key() || again.Value != e.Value {
			t.Fatalf("%q → %q → %+v, %v", s, e.String(), again, err)
		}
	})
}

// A lesson is a preset of edits: each parses, and a learner's own edit of
// the same field wins (--lesson bad-rkey --edit post-write.rkey=rkey
// writes with the right key again).
func TestLessonPresets(t *testing.T) {
	presets := 0
	for _, l := range steps.Lessons() {
		presets += len(l.Preset()) // nothing for one that does not parse
	}
	if presets < 4 {
		t.Errorf("%d preset edits; bad-rkey, no-remote-write, no-remote-read and no-remote-atomic are edits", presets)
	}
	l, _ := steps.ParseLesson("bad-rkey")
	if got := l.Preset().Strings(); len(got) != 1 || got[0] != "client:post-write.rkey=lkey" {
		t.Errorf("bad-rkey preset %v", got)
	}
	restore, err := steps.ParseEdit("post-write.rkey=rkey")
	if err != nil {
		t.Fatal(err)
	}
	sides, err := steps.RunPair(context.Background(), steps.Config{Lesson: l, Edits: steps.Edits{restore}, Timeout: 5 * time.Second},
		sim.New(sim.Options{}), sim.New(sim.Options{}))
	if err != nil {
		t.Fatalf("restored rkey: %v", err)
	}
	if r := sides[steps.Server].Snapshot().Result; r == nil {
		t.Errorf("restored rkey: nothing landed (%v)", err)
	}
}
