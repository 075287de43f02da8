package exercise_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/exercise"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestJudge: the verdict comes from the evidence (the peer's steps, its
// buffer, the program's end), names it, and reads in both languages.
func TestJudge(t *testing.T) {
	client, _ := exercise.Find("bad-rkey")
	server, _ := exercise.Find("no-remote-write")
	waitDone := steps.StepStatus{ID: "poll-notify", Title: text.Text{EN: "Wait for the client's notice", ZH: "等待 client 的通知"}}
	failed := waitDone
	failed.Outcome = &steps.Outcome{Failure: text.Text{EN: "status \"Work Request Flushed Error\"", ZH: "状态 \"Work Request Flushed Error\""}}
	// After teardown the buffer is gone; the Result kept what landed.
	landed := steps.Snapshot{Role: steps.Server, Done: true, Result: &steps.Result{Message: []byte("hello\x1b[2J")}}
	for _, tt := range []struct {
		name string
		ex   exercise.Exercise
		ev   exercise.Evidence
		pass bool
		want []string // in the English verdict and evidence
	}{
		{"pass", client, exercise.Evidence{Peer: landed}, true,
			[]string{"pass: bad-rkey works", "finished its tour", `9 bytes, "hello\e[2J"`}},
		{"remote access error", client, exercise.Evidence{ExitCode: 1, LastLine: "RDMA_WRITE completion failed: status=remote access error",
			Peer: steps.Snapshot{Role: steps.Server, Done: true, Failed: true, Steps: []steps.StepStatus{failed}}}, false,
			[]string{"exit status 1", "status=remote access error", "step poll-notify (Wait for the client's notice) failed: status \"Work Request Flushed Error\"", "buffer: empty"}},
		{"hang", client, exercise.Evidence{TimedOut: true, Limit: 20 * time.Second, ExitCode: -1,
			Peer: steps.Snapshot{Role: steps.Server, Next: 0, Steps: []steps.StepStatus{waitDone}}}, false,
			[]string{"still running after 20s", "killed at the 20s limit", "still at step poll-notify", "0 of 1 steps done"}},
		{"exit 0, nothing landed", client, exercise.Evidence{Peer: steps.Snapshot{Role: steps.Server, Done: true}}, false,
			[]string{"exit status 0", "buffer: empty"}},
		{"server exercise, peer client failed", server, exercise.Evidence{ExitCode: -1, TimedOut: true, Limit: time.Second,
			Peer: steps.Snapshot{Role: steps.Client, Done: true, Failed: true, Steps: []steps.StepStatus{failed}}}, false,
			[]string{"rdmatour's client: step poll-notify"}},
		{"server exercise passes", server, exercise.Evidence{Peer: steps.Snapshot{Role: steps.Client, Done: true}}, true,
			[]string{"pass: no-remote-write works"}},
	} {
		v := tt.ex.Judge(tt.ev)
		if v.Pass != tt.pass {
			t.Errorf("%s: pass = %v, want %v", tt.name, v.Pass, tt.pass)
		}
		en, zh := v.Says.EN, v.Says.ZH
		for _, e := range v.Evidence {
			en += "\n" + e.EN
			zh += "\n" + e.ZH
			if e.ZH == "" {
				t.Errorf("%s: evidence %q has no Chinese", tt.name, e.EN)
			}
		}
		for _, w := range tt.want {
			if !strings.Contains(en, w) {
				t.Errorf("%s: verdict lacks %q:\n%s", tt.name, w, en)
			}
		}
		if strings.Contains(en, "\x1b") || strings.Contains(zh, "\x1b") {
			t.Errorf("%s: a peer's bytes reached the verdict unescaped", tt.name)
		}
		if tt.pass != strings.HasPrefix(zh, "通过") {
			t.Errorf("%s: the Chinese verdict %q", tt.name, zh)
		}
	}
}

// TestWhereToLook: in every learner's program as start writes it, the
// verdict can point at the line of the exercise's change and its step;
// once the learner rewrote that line, it points nowhere.
func TestWhereToLook(t *testing.T) {
	for _, e := range exercise.Catalogue() {
		p := programs(t, e)
		line, step, ok := e.WhereToLook(p.Learner)
		removed := len(e.Task) == 1 && e.Task[0].To == ""
		if ok == removed {
			t.Errorf("%s: WhereToLook ok = %v (the change removes a step: %v)", e.Name, ok, removed)
			continue
		}
		if !ok {
			continue
		}
		if step == "" || line < 20 {
			t.Errorf("%s: line %d, step %q", e.Name, line, step)
		}
		if _, _, still := e.WhereToLook(p.Solution); still && e.Kind == exercise.FixTheBug {
			t.Errorf("%s: the solution still has the mistake", e.Name)
		}
	}
	early, _ := exercise.Find("post-before-connect")
	if _, step, _ := early.WhereToLook(programs(t, early).Learner); step != "post-write-early" {
		t.Errorf("post-before-connect points at step %q, want the inserted post-write-early", step)
	}
	e, _ := exercise.Find("bad-rkey")
	p := programs(t, e)
	v := e.Judge(exercise.Evidence{ExitCode: 1, Source: p.Learner})
	if last := v.Evidence[len(v.Evidence)-1].EN; !strings.Contains(last, "bad-rkey.c line ") || !strings.HasSuffix(last, "in step post-write") {
		t.Errorf("bad-rkey's verdict points at %q", last)
	}
}

// TestCounterEvidence: the counters that moved are named with what they
// mean, in both languages; none moved, no line.
func TestCounterEvidence(t *testing.T) {
	e, _ := exercise.Find("no-recv")
	ev := exercise.Evidence{ExitCode: -1, TimedOut: true, Limit: time.Second, CountersOf: "rxe0 port 1",
		Counters: map[string]uint64{"rcvd_rnr_err": 7, "send_rnr_err": 7, "sent_pkts": 40}}
	en, zh := "", ""
	for _, l := range e.Judge(ev).Evidence {
		en, zh = en+l.EN+"\n", zh+l.ZH+"\n"
	}
	if !strings.Contains(en, "the device's counters (rxe0 port 1, every QP on it") || !strings.Contains(en, "rcvd_rnr_err +7 (RNR NAKs received") || strings.Contains(en, "sent_pkts") {
		t.Errorf("counters in the verdict:\n%s", en)
	}
	if !strings.Contains(zh, "设备计数器（rxe0 port 1") || !strings.Contains(zh, "send_rnr_err +7") {
		t.Errorf("counters in the Chinese verdict:\n%s", zh)
	}
	ev.Counters = map[string]uint64{"sent_pkts": 3}
	for _, l := range e.Judge(ev).Evidence {
		if strings.Contains(l.EN, "counters") {
			t.Errorf("a counter line with no counter that matters: %s", l.EN)
		}
	}
}
