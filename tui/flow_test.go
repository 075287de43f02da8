package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

func TestDemoTourByKeys(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 120, 40)
	keys := []string{"enter", "space", "n"}
	for i := 0; m.planPos < len(m.plan); i++ {
		if i > 100 || m.end.err != nil {
			t.Fatalf("tour stuck at turn %d: %v", m.planPos, m.end.err)
		}
		press(t, m, keys[i%len(keys)])
	}
	if err := m.verdict(); err != nil {
		t.Fatalf("verdict: %v", err)
	}
	res := m.snaps[0].Result
	if res == nil || string(res.Message) != steps.DefaultMessage || res.Via != steps.NotifySend {
		t.Fatalf("result: %+v", res)
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "The server's buffer holds") || !strings.Contains(screen, "RDMA_WRITE_DONE") {
		t.Errorf("the result is not shown:\n%s", screen)
	}
	// The explanation follows the step just run: the client's teardown.
	if side, idx := m.curStep(); side != 1 || m.snaps[1].Steps[idx].ID != "teardown" {
		t.Errorf("current step = %d/%d", side, idx)
	}
	press(t, m, "enter") // the tour is over: nothing happens
	if err := m.shutdown(); err != nil {
		t.Fatal(err)
	}
	if n := r.srvNIC.Live().Total() + r.cliNIC.Live().Total(); n != 0 {
		t.Errorf("%d resources left", n)
	}
}

func TestDoorbellAndImmTours(t *testing.T) {
	for _, n := range []steps.Notify{steps.NotifyDoorbell, steps.NotifyImm} {
		r := newRig(t, n)
		m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.ZH, 80, 24)
		for i := 0; m.planPos < len(m.plan); i++ {
			if i > 100 || m.end.err != nil {
				t.Fatalf("%s: stuck: %v", n, m.end.err)
			}
			press(t, m, "enter")
			checkFrame(t, n.String(), m.render(), 80, 24)
		}
		if res := m.snaps[0].Result; res == nil || res.Via != n {
			t.Errorf("%s: result %+v", n, res)
		}
		if !strings.Contains(ansi.Strip(m.render()), "server 的 buffer 里现在是") {
			t.Errorf("%s: no result banner", n)
		}
	}
}

// A step waiting for the peer keeps the UI live; q cancels it and the
// sessions are torn down completely.
func TestQuitMidTour(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv}, text.EN, 80, 24)
	for range 4 {
		press(t, m, "enter") // up to listen
	}
	_, cmd := m.Update(keyMsg("enter")) // get-connect-request: waits for a client
	if cmd == nil || !m.run.on {
		t.Fatal("the waiting step did not start")
	}
	done := make(chan tea.Msg)
	go func() { done <- cmd() }()
	if _, again := m.Update(keyMsg("n")); again != nil {
		t.Error("a second step started while one runs")
	}
	m.Update(tickMsg{})
	if !strings.Contains(m.render(), "running") {
		t.Error("no running indicator")
	}
	_, quit := m.Update(keyMsg("q"))
	if quit == nil {
		t.Fatal("q did not quit")
	}
	if _, ok := quit().(tea.QuitMsg); !ok {
		t.Fatal("q did not return tea.Quit")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the running step was not cancelled")
	}
	if !errors.Is(m.verdict(), ErrQuit) {
		t.Errorf("verdict %v, want ErrQuit", m.verdict())
	}
	if err := m.shutdown(); err != nil {
		t.Fatal(err)
	}
	if n := r.srvNIC.Live().Total(); n != 0 {
		t.Errorf("%d resources left after quit", n)
	}
}

func TestKeys(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 80, 24)
	if !strings.Contains(m.render(), "Explain") {
		t.Fatal("no English tab names")
	}
	press(t, m, "l")
	if m.lang != text.ZH || !strings.Contains(m.render(), "讲解") || !strings.Contains(m.render(), "下一步") {
		t.Errorf("l: lang %s, no Chinese titles/help", m.lang)
	}
	press(t, m, "l")
	if m.lang != text.Both {
		t.Errorf("l: %s", m.lang)
	}
	press(t, m, "l")
	if m.lang != text.EN {
		t.Errorf("l: %s", m.lang)
	}
	press(t, m, "tab")
	if m.tab() != tabState {
		t.Errorf("tab: %d", m.tab())
	}
	press(t, m, "s")
	if m.scr.side != 1 || !strings.Contains(m.render(), "[client]") {
		t.Error("s does not switch sides in the demo")
	}
	press(t, m, "?")
	if !m.scr.showHelp || !strings.Contains(m.render(), "scroll down") {
		t.Error("? shows no full help")
	}
	press(t, m, "?")
	// Scrolling the explanation.
	m.scr.focus = tabExplain
	before := m.render()
	press(t, m, "down")
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.render() == before {
		t.Error("down / wheel did not scroll")
	}
	press(t, m, "pgdown")
	checkFrame(t, "scrolled", m.render(), 80, 24)
	// Resize to wide and back.
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	checkFrame(t, "wide", m.render(), 160, 50)
	for range 10 {
		press(t, m, "tab")
		checkFrame(t, "wide-tab", m.render(), 160, 50)
	}
}

// Run drives a real program on pipes: it starts, q quits, the sessions
// are closed and Run says the tour did not finish.
func TestRun(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	in, inW := io.Pipe()
	var out bytes.Buffer
	errc := make(chan error, 1)
	go func() {
		errc <- Run(context.Background(), Options{Sessions: []steps.Runner{r.srv}, Lang: text.ZH, Docs: fakeDocs,
			Input: in, Output: &out, Width: 100, Height: 30, Environ: []string{"TERM=xterm-256color"}})
	}()
	time.Sleep(300 * time.Millisecond)
	inW.Write([]byte("n"))
	time.Sleep(300 * time.Millisecond)
	inW.Write([]byte("q"))
	select {
	case err := <-errc:
		if !errors.Is(err, ErrQuit) {
			t.Errorf("Run: %v, want ErrQuit", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after q")
	}
	inW.Close()
	if n := r.srvNIC.Live().Total(); n != 0 {
		t.Errorf("%d resources left", n)
	}
	if d, _ := r.srv.Done(); !d {
		t.Error("the session was not closed")
	}
	if !strings.Contains(out.String(), "rdmatour") {
		t.Error("nothing rendered")
	}
}

func TestRunContextEnds(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	in, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := Run(ctx, Options{Sessions: []steps.Runner{r.srv}, Docs: fakeDocs, Input: in, Output: io.Discard, Width: 80, Height: 24})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run: %v", err)
	}
}

func BenchmarkView120x40(b *testing.B) {
	r := newRig(b, steps.NotifySend)
	m := newTestModel(b, []steps.Runner{r.srv, r.cli}, text.EN, 120, 40)
	for m.planPos < len(m.plan)-4 && m.end.err == nil {
		press(b, m, "enter") // stop before the teardown: full state
	}
	single := newTestModel(b, []steps.Runner{r.srv}, text.EN, 120, 40)
	single.render() // warm the page cache
	m.render()
	b.Run("server", func(b *testing.B) {
		for b.Loop() {
			_ = single.View()
		}
	})
	b.Run("demo", func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})
}
