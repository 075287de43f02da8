package main

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/progress"
	"github.com/rdmatour/rdmatour/steps"
)

// learner is a learner's environment: a state directory of its own.
type learner struct {
	t     *testing.T
	state string
	dir   string
}

func newLearner(t *testing.T) learner {
	return learner{t: t, state: t.TempDir(), dir: t.TempDir()}
}

func (l learner) getenv(k string) string {
	return map[string]string{"XDG_STATE_HOME": l.state, "LANG": "C"}[k]
}

// run runs rdmatour with args and returns the exit status and output.
func (l learner) run(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, nil, &stdout, &stderr, l.getenv)
	return code, stdout.String(), stderr.String()
}

func (l learner) progress() progress.File {
	f, _, err := progress.Store{Dir: filepath.Join(l.state, "rdmatour")}.Load()
	if err != nil {
		l.t.Fatal(err)
	}
	return f
}

// TestExerciseStartHintSolution walks one exercise as a learner would:
// the list, start (twice: the second refuses), three hints and a fourth,
// the solution beside the program, and the list that counts it all.
func TestExerciseStartHintSolution(t *testing.T) {
	l := newLearner(t)
	code, out, _ := l.run("exercise")
	if code != 0 || !strings.Contains(out, "bad-rkey             new") {
		t.Fatalf("exercise: exit %d\n%s", code, out)
	}
	dir := filepath.Join(l.dir, "work")
	if code, out, errs := l.run("exercise", "start", "bad-rkey", "--dir", dir); code != 0 || !strings.Contains(out, "Wrote "+filepath.Join(dir, "bad-rkey.c")) {
		t.Fatalf("start: exit %d\n%s%s", code, out, errs)
	}
	for _, f := range []string{"bad-rkey.c", "Makefile", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("start wrote no %s: %v", f, err)
		}
	}
	if code, _, errs := l.run("exercise", "--dir", dir, "start", "bad-rkey"); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("second start: exit %d, %q; want 1 and already exists", code, errs)
	}
	for i, want := range []string{"1/3 Look at", "2/3 `rkey` must be", "3/3 Use `.rkey = rkey`", "3/3 Use `.rkey = rkey`"} {
		code, out, _ := l.run("exercise", "hint", "bad-rkey")
		if code != 0 || !strings.Contains(out, want) || strings.Count(out, "/3 ") != min(i+1, 3) {
			t.Errorf("hint %d: exit %d\n%s\nwant %q", i+1, code, out, want)
		}
	}
	if code, out, _ := l.run("exercise", "solution", "bad-rkey", "--dir", dir); code != 0 || !strings.Contains(out, "untouched") {
		t.Errorf("solution: exit %d\n%s", code, out)
	}
	mine, _ := os.ReadFile(filepath.Join(dir, "bad-rkey.c"))
	sol, _ := os.ReadFile(filepath.Join(dir, "bad-rkey.solution.c"))
	if !strings.Contains(string(mine), ".rkey = mr->lkey") || strings.Contains(string(sol), ".rkey = mr->lkey") {
		t.Errorf("the learner's program must keep the mistake and the solution must not")
	}
	if _, out, _ := l.run("exercise", "list"); !strings.Contains(out, "bad-rkey             started, 3 hints, solution") {
		t.Errorf("list after hints:\n%s", out)
	}
	if _, out, _ := l.run("exercise", "list", "--lang", "zh"); !strings.Contains(out, "已开始，用了 3 个提示，看过答案") {
		t.Errorf("list in Chinese:\n%s", out)
	}
	if st := l.progress().Exercise("bad-rkey"); !st.Started || st.Hints != 3 || !st.SolutionSeen || st.Passed {
		t.Errorf("progress: %+v", st)
	}
}

func TestExerciseBadInput(t *testing.T) {
	l := newLearner(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"exercise", "frobnicate"}, `unknown exercise command "frobnicate"`},
		{[]string{"exercise", "start"}, "needs one exercise NAME"},
		{[]string{"exercise", "hint", "nope"}, `no exercise called "nope"; the exercises are: no-remote-write, bad-rkey`},
		{[]string{"exercise", "list", "bad-rkey"}, "takes no NAME"},
		{[]string{"exercise", "start", "bad-rkey", "--no-such"}, "flag provided but not defined"},
		{[]string{"exercise", "check", "bad-rkey", "--dir", l.dir}, "there is no " + filepath.Join(l.dir, "bad-rkey.c")},
		{[]string{"progress", "extra"}, "Usage: rdmatour progress"},
	} {
		code, out, errs := l.run(tt.args...)
		if code != 2 || !strings.Contains(errs, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and %q", tt.args, code, errs, out, tt.want)
		}
	}
}

// TestProgressAfterADemo: a demo that ran to its end counts its tour,
// a lesson's demo its lesson; the map says done, next and not yet, in
// both languages.
func TestProgressAfterADemo(t *testing.T) {
	l := newLearner(t)
	for _, args := range [][]string{
		{"demo", "--backend", "sim", "--plain", "--auto", "--brief"},
		{"demo", "--backend", "sim", "--plain", "--auto", "--brief", "--lesson", "bad-rkey"},
	} {
		if code, _, errs := l.run(args...); code != 0 && code != 1 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	f := l.progress()
	if !f.TourDone("write") || !f.LessonDone("bad-rkey") || f.TourDone("read") {
		t.Errorf("progress after the demos: %+v", f)
	}
	_, out, _ := l.run("progress")
	for _, want := range []string{"✓ write                  done", "→ read                   next", "  atomic                 not yet", "✓ bad-rkey               done", "→ no-recv                next"} {
		if !strings.Contains(out, want) {
			t.Errorf("progress lacks %q:\n%s", want, out)
		}
	}
	if _, out, _ := l.run("progress", "--lang", "zh"); !strings.Contains(out, "✓ write                  完成") || !strings.Contains(out, "下一个") {
		t.Errorf("progress in Chinese:\n%s", out)
	}
}

// TestCountRun: what one side's end counts.
func TestCountRun(t *testing.T) {
	answered := func(picked, actual int) *steps.PredictionState {
		return &steps.PredictionState{Picked: picked, Actual: actual, Revealed: true}
	}
	expected := []steps.StepStatus{{ID: "poll-write", Outcome: &steps.Outcome{Expected: true}}}
	unexpected := []steps.StepStatus{{ID: "connect", Outcome: &steps.Outcome{}}}
	for _, tt := range []struct {
		name         string
		snap         steps.Snapshot
		tour         string
		lesson       string
		right, wrong int
	}{
		{"tour done", steps.Snapshot{Done: true, Tour: steps.TourRead}, "read", "", 0, 0},
		{"tour failed", steps.Snapshot{Done: true, Failed: true, Steps: unexpected}, "", "", 0, 0},
		{"quit early", steps.Snapshot{}, "", "", 0, 0},
		{"lesson, right", steps.Snapshot{Done: true, Failed: true, Steps: expected, Lesson: "bad-rkey", Prediction: answered(1, 1)}, "", "bad-rkey", 1, 0},
		{"lesson, wrong", steps.Snapshot{Done: true, Failed: true, Steps: expected, Lesson: "bad-rkey", Prediction: answered(2, 1)}, "", "bad-rkey", 0, 1},
		{"skipped", steps.Snapshot{Lesson: "bad-rkey", Prediction: &steps.PredictionState{Picked: -1, Skipped: true, Revealed: true}}, "", "", 0, 0},
	} {
		var f progress.File
		countRun(&f, tt.snap, time.Now())
		tally := f.Predictions["bad-rkey"]
		if f.TourDone(tt.tour) != (tt.tour != "") || f.LessonDone(tt.lesson) != (tt.lesson != "") || tally.Right != tt.right || tally.Wrong != tt.wrong {
			t.Errorf("%s: %+v", tt.name, f)
		}
	}
}

// TestExerciseCheckWithoutDevice: on a machine with no RDMA device,
// check builds the program, then says plainly that it cannot run it,
// with doctor's report, and fails (exit 1). Nothing pretends.
func TestExerciseCheckWithoutDevice(t *testing.T) {
	if _, err := openReal(netip.Addr{}); err == nil {
		t.Skip("this machine has an RDMA device: the guest suite checks for real")
	}
	needGCCAndHeaders(t)
	l := newLearner(t)
	if code, _, errs := l.run("exercise", "start", "bad-rkey", "--dir", l.dir); code != 0 {
		t.Fatalf("start: %s", errs)
	}
	code, out, errs := l.run("exercise", "check", "bad-rkey", "--dir", l.dir)
	for _, want := range []string{"cannot check: this machine has no usable RDMA device", "simulated NIC cannot run your C program", "rdmatour doctor says", "Soft-RoCE", "docs/en/exercise-bad-rkey.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s%s", want, out, errs)
		}
	}
	if code != 1 {
		t.Errorf("check without a device: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(l.dir, "bad-rkey")); err != nil {
		t.Errorf("check did not build the program first: %v", err)
	}
	if l.progress().Exercise("bad-rkey").Passed {
		t.Error("a check that could not run passed the exercise")
	}
}

// TestExerciseCheckBuildFailure: a program that does not build fails
// with gcc's words, before any device is asked for.
func TestExerciseCheckBuildFailure(t *testing.T) {
	needGCCAndHeaders(t)
	l := newLearner(t)
	if err := os.WriteFile(filepath.Join(l.dir, "bad-rkey.c"), []byte("int main(void) { int unused; return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := l.run("exercise", "check", "bad-rkey", "--dir", l.dir)
	if code != 1 || !strings.Contains(out, "does not build") || !strings.Contains(out, "unused") {
		t.Errorf("check of a program that does not build: exit %d\n%s", code, out)
	}
}

func needGCCAndHeaders(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	if _, err := os.Stat("/usr/include/rdma/rdma_cma.h"); err != nil {
		t.Skip("the rdma_cm headers are missing")
	}
}

// TestExerciseWatch drives watch by writing the file: each save brings
// a new check (here: gcc's verdict on what was saved), and Ctrl-C (the
// context) ends it with exit 0.
func TestExerciseWatch(t *testing.T) {
	needGCCAndHeaders(t)
	l := newLearner(t)
	src := filepath.Join(l.dir, "bad-rkey.c")
	save := func(body string) {
		if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save("int main(void) { int first_unused; return 0; }\n")
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"exercise", "watch", "bad-rkey", "--dir", l.dir}, nil, out, out, l.getenv)
	}()
	waitFor := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if strings.Contains(out.String(), what) {
				return
			}
		}
		t.Fatalf("watch never said %q:\n%s", what, out.String())
	}
	waitFor("first_unused")
	time.Sleep(200 * time.Millisecond) // the watcher is set up before the first check
	save("int main(void) { int second_unused; return 0; }\n")
	waitFor("second_unused")
	if n := strings.Count(out.String(), "check bad-rkey (Ctrl-C ends watch)"); n != 2 {
		t.Errorf("%d checks for one start and one save:\n%s", n, out.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("watch ended with exit %d", code)
	}
}
