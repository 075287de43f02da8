package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rdmatour/rdmatour/steps"
)

// The demo driven through a real Bubble Tea program (teatest): keypresses
// go in as a user's would, steps run in the program's goroutines, and the
// final model holds the finished tour with nothing left allocated.
func TestTeatestDemoTour(t *testing.T) {
	r := newRig(t, steps.NotifyImm)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, steps.LangEN, 120, 40)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	total := len(m.plan)
	for i := 0; i < total; i++ {
		pressUntilSteps(t, enterKey(tm), i+1, r.srv, r.cli)
	}
	teatest.WaitFor(t, tm.Output(), func(out []byte) bool { return bytes.Contains(out, []byte("imm_data")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'q', Text: "q"})
	final, ok := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	if !ok {
		t.Fatalf("final model is %T", final)
	}
	if err := final.shutdown(); err != nil { // what Run does after the program ends
		t.Fatal(err)
	}
	if final.planPos != total || final.end.err != nil {
		t.Fatalf("final model: turn %d of %d, error %v", final.planPos, total, final.end.err)
	}
	if res := final.snaps[0].Result; res == nil || res.Via != steps.NotifyImm || string(res.Message) != steps.DefaultMessage {
		t.Errorf("result %+v", res)
	}
	if n := r.srvNIC.Live().Total() + r.cliNIC.Live().Total(); n != 0 {
		t.Errorf("%d resources left after quitting", n)
	}
}

// Quitting in the middle of the tour (the server waiting for its client)
// through the real program tears both sides down.
func TestTeatestQuitMidTour(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, steps.LangZH, 80, 24)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	for i := 1; i <= 12; i++ {
		pressUntilSteps(t, enterKey(tm), i, r.srv, r.cli)
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	if err := final.shutdown(); err != nil {
		t.Fatal(err)
	}
	if final.planPos != 12 {
		t.Errorf("quit at turn %d, want 12", final.planPos)
	}
	if n := r.srvNIC.Live().Total() + r.cliNIC.Live().Total(); n != 0 {
		t.Errorf("%d resources left after ctrl+c", n)
	}
}

// pressUntilSteps presses Enter until the sessions have run n steps. A
// session counts a step as run a moment before the program hears that it
// finished; an Enter that lands in that moment only gets the "still
// running" note (as a person's would), so it is pressed again. A second
// press while the step still runs is harmless for the same reason.
func pressUntilSteps(t *testing.T, press func(), n int, sessions ...*steps.Session) {
	t.Helper()
	for try := 0; try < 20; try++ {
		press()
		deadline := time.Now().Add(500 * time.Millisecond)
		for time.Now().Before(deadline) {
			ran := 0
			for _, s := range sessions {
				ran += s.Next()
			}
			if ran >= n {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	t.Fatalf("step %d never ran", n)
}

// enterKey presses Enter in a teatest program.
func enterKey(tm *teatest.TestModel) func() {
	return func() { tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter}) }
}

// waitSteps waits until the sessions together have run n steps. The
// screen is no use for this: the renderer redraws only changed cells.
func waitSteps(t *testing.T, n int, sessions ...*steps.Session) {
	t.Helper()
	// A hang detector, not a speed test: under -race on a loaded
	// machine 35 steps took longer than 10 s.
	deadline := time.Now().Add(60 * time.Second)
	for {
		ran := 0
		for _, s := range sessions {
			ran += s.Next()
		}
		if ran >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d steps ran", ran, n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
