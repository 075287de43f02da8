package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// runProgram runs Run in the background with keys from a pipe; it
// returns the pipe's writer and a channel with Run's result and output.
func runProgram(t *testing.T, opts Options) (io.WriteCloser, <-chan string, <-chan error) {
	t.Helper()
	keys, typing := io.Pipe()
	out := &lockedBuffer{}
	opts.Input, opts.Output = keys, out
	opts.Docs, opts.Width, opts.Height = fakeDocs, 120, 40
	done := make(chan error, 1)
	text := make(chan string, 1)
	go func() {
		err := Run(context.Background(), opts)
		text <- out.String()
		done <- err
	}()
	t.Cleanup(func() { typing.Close() })
	return typing, text, done
}

// --auto in the full-screen UI: the whole demo runs by itself, one step
// after another; q then leaves the one-line summary on the terminal.
func TestAutoRunsTheTourVisibly(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	typing, text, done := runProgram(t, Options{Sessions: []steps.Runner{r.srv, r.cli}, Lang: text.EN, Auto: true, AutoDelay: 5 * time.Millisecond})
	total := len(r.srv.Steps()) + len(r.cli.Steps())
	waitSteps(t, total, r.srv, r.cli) // no key pressed
	typing.Write([]byte("q"))
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := <-text
	last := lastLine(out)
	want := "rdmatour demo: tour complete, server 17/17, client 18/18 steps on the simulated NIC (sim0, not real RDMA); the server's buffer holds \"hello from rdmatour client via RDMA WRITE\" (via send)"
	if !strings.HasSuffix(last, want) {
		t.Errorf("summary line\n got  %q\n want %q", last, want)
	}
}

// q before the end: the summary says how far the tour got.
func TestQuitLeavesASummary(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	typing, text, done := runProgram(t, Options{Sessions: []steps.Runner{r.srv}, Lang: text.ZH})
	typing.Write([]byte("\r"))
	waitSteps(t, 1, r.srv)
	typing.Write([]byte("q"))
	if err := <-done; !errors.Is(err, ErrQuit) {
		t.Fatalf("Run: %v, want ErrQuit", err)
	}
	want := "rdmatour server：中途退出，1/17 步，模拟网卡（sim0，非真实 RDMA）（下一步：创建监听用的 CM id）"
	if last := lastLine(<-text); !strings.HasSuffix(last, want) {
		t.Errorf("summary line\n got  %q\n want %q", last, want)
	}
}

// q while looking back at an earlier step: the summary is about where the
// tour is, not the step on screen (it said "tour complete, 12/18").
func TestQuitWhileLookingBackSummarisesNow(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	typing, text, done := runProgram(t, Options{Sessions: []steps.Runner{r.srv}, Lang: text.EN})
	for i := 1; i <= 3; i++ {
		pressUntilSteps(t, func() { typing.Write([]byte("\r")) }, i, r.srv)
	}
	time.Sleep(50 * time.Millisecond) // the last step's end reaches the UI
	typing.Write([]byte("[["))
	time.Sleep(50 * time.Millisecond)
	typing.Write([]byte("q"))
	if err := <-done; !errors.Is(err, ErrQuit) {
		t.Fatalf("Run: %v, want ErrQuit", err)
	}
	want := "rdmatour server: quit before the end, 3/17 steps on the simulated NIC (sim0, not real RDMA) (next: Listen for connection requests)"
	if last := lastLine(<-text); !strings.HasSuffix(last, want) {
		t.Errorf("summary line\n got  %q\n want %q", last, want)
	}
}

func TestSummaryLine(t *testing.T) {
	snap := func(role steps.Role, done, total int) steps.Snapshot {
		s := steps.Snapshot{Role: role, Backend: "rdma", Device: &steps.DeviceState{}, Next: done}
		s.Device.Info.Name = "rxe0"
		for i := range total {
			st := steps.StepStatus{ID: "s" + string(rune('a'+i)), Title: text.Text{EN: "Step " + string(rune('A'+i)), ZH: "步骤"}}
			if i < done {
				st.State = steps.Succeeded
			}
			s.Steps = append(s.Steps, st)
		}
		return s
	}
	failed := snap(steps.Client, 2, 4)
	failed.Failed = true
	failed.Steps[2].State = steps.FailedState
	waiting := snap(steps.Server, 4, 6)
	waiting.Running = true
	cancelled := snap(steps.Server, 4, 6)
	cancelled.Failed = true
	cancelled.Steps[4].State = steps.FailedState
	tests := []struct {
		name    string
		snaps   []steps.Snapshot
		verdict error
		want    string
	}{
		{"complete", []steps.Snapshot{snap(steps.Client, 4, 4)}, nil, "rdmatour client: tour complete, 4/4 steps on rxe0 (real RDMA)"},
		{"quit", []steps.Snapshot{snap(steps.Server, 1, 4)}, ErrQuit, "rdmatour server: quit before the end, 1/4 steps on rxe0 (real RDMA) (next: Step B)"},
		// q or Ctrl-C during a wait named no step: "(next: )".
		{"quit during a wait", []steps.Snapshot{waiting}, ErrQuit, "rdmatour server: quit before the end, 4/6 steps on rxe0 (real RDMA) (stopped while running: Step E)"},
		{"quit, the wait already cancelled", []steps.Snapshot{cancelled}, ErrQuit, "rdmatour server: quit before the end, 4/6 steps on rxe0 (real RDMA) (stopped while running: Step E)"},
		{"failed", []steps.Snapshot{failed}, &TourError{Side: steps.Client, StepID: "sc", Explain: "the server has gone"},
			`rdmatour client: client step "Step C" failed after 2/4 steps on rxe0 (real RDMA)`},
	}
	for _, tt := range tests {
		if got := summaryLine(tt.snaps, tt.verdict, false, false, text.EN); got != tt.want {
			t.Errorf("%s:\n got  %q\n want %q", tt.name, got, tt.want)
		}
	}
	// In zh the line is all Chinese; why it failed follows on stderr, in
	// Chinese too (console.finish), not repeated here.
	gone := &steps.Problem{What: text.Text{EN: "the server has gone", ZH: "server 已经不在了"}}
	zh := summaryLine([]steps.Snapshot{failed}, &TourError{Side: steps.Client, StepID: "sc", Explain: "the server has gone", Err: gone}, false, false, text.ZH)
	if want := "rdmatour client：client 的步骤「步骤」失败，已完成 2/4 步，rxe0（真实 RDMA）"; zh != want {
		t.Errorf("zh failure:\n got  %q\n want %q", zh, want)
	}
}

// lastLine is the last non-empty line of a terminal's output, without
// escape sequences. Without a real terminal the program does not leave
// an alternate screen, so the summary may follow the last frame's line
// (the tmux test checks it on a terminal).
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(ansi.Strip(out), "\r\n "), "\n")
	return strings.TrimSpace(strings.TrimRight(lines[len(lines)-1], "\r"))
}

// lockedBuffer is a bytes.Buffer safe for the program's writer goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// In an --auto run Enter runs the next step at once; the tick that was
// pending then must not run one too, or every Enter adds a second chain
// of ticks and the tour speeds up (seen in tmux: 4 Enters, 8 steps/s).
func TestAutoEnterDoesNotDoubleThePace(t *testing.T) {
	m := sharedDemo(t, "", 160, 50)
	m.auto.on, m.auto.delay = true, time.Millisecond
	stale := m.autoNext()().(autoStepMsg) // pending when Enter is pressed
	m.auto.on = false                     // press would follow the ticks to the end
	press(t, m, "enter")
	m.auto.on = true
	m.autoNext() // what the step's end does
	before := m.planPos
	if _, cmd := m.Update(stale); cmd != nil || m.run.on || m.planPos != before || m.run.keyWhileWaiting {
		t.Fatalf("a replaced tick ran a step (planPos %d → %d, running %v)", before, m.planPos, m.run.on)
	}
	m.setLang(text.EN)
	if f := ansi.Strip(strings.Join(m.footer(160), "\n")); !strings.Contains(f, "enter auto: next step now") {
		t.Errorf("the footer does not say the steps run by themselves: %q", f)
	}
	if _, cmd := m.Update(autoStepMsg{m.auto.gen}); cmd == nil {
		t.Errorf("the current tick did not run the next step (planPos %d, running %v, err %v)", m.planPos, m.run.on, m.end.err)
	}
}
