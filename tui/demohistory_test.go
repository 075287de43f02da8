package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/record"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// recordedDemo runs a whole simulated demo in the TUI with --record's
// writer attached and returns the file.
func recordedDemo(t *testing.T) []byte {
	t.Helper()
	r := newRig(t, steps.NotifySend)
	var file bytes.Buffer
	w := record.NewWriter(&file, "test", "demo")
	// The rig's sessions have no recorder: remake them with one.
	srvCfg, cliCfg := r.srv.Config(), r.cli.Config()
	srvCfg.Recorder, cliCfg.Recorder = w.Side(steps.Server), w.Side(steps.Client)
	srv, err := steps.NewSession(srvCfg)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := steps.NewSession(cliCfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Begin([]string{"sim0"}, srv, cli); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, []steps.Runner{srv, cli}, text.EN, 100, 30)
	// Keys back to back, as --auto presses them: the bytes land while
	// the client polls its CQ, and the history still has them.
	for m.planPos < len(m.plan) && m.end.err == nil {
		press(t, m, "enter")
	}
	if m.end.err != nil {
		t.Fatal(m.end.err)
	}
	if err := m.shutdown(); err != nil {
		t.Fatal(err)
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

// untilClientWrite presses Enter until the client's post-write is the
// last step run.
func untilClientWrite(t *testing.T, m *model) {
	t.Helper()
	for {
		done := m.finishedSteps()
		if n := len(done); n > 0 && done[n-1].side == 1 && m.tours[1][done[n-1].idx].ID == "post-write" {
			return
		}
		if m.planPos >= len(m.plan) || m.end.err != nil {
			t.Fatalf("the client's post-write never ran (%v)", m.end.err)
		}
		press(t, m, "enter")
	}
}

// waitLanding waits until the WRITE's bytes show in the server's live
// state: they land a moment after ibv_post_send returns (a replay has
// them at once).
func waitLanding(t *testing.T, m *model) {
	t.Helper()
	if m.sessions[0].Replaying() {
		return // recorded: the test below checks it is there
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		m.refresh()
		if strings.Contains(string(m.snaps[0].Data.Bytes), steps.DefaultMessage) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the client's WRITE never landed in the server's buffer")
		}
	}
}

// backToClientWrite presses [ until the client's post-write is shown.
func backToClientWrite(t *testing.T, m *model) {
	t.Helper()
	for i := 0; !(m.look.on && m.look.side == 1 && m.tours[1][m.look.idx].ID == "post-write"); i++ {
		if i > len(m.plan) {
			t.Fatal("[ never reached the client's post-write")
		}
		press(t, m, "[")
	}
}

// serverShowsMessage says the server's state, as rendered, holds the
// client's message (the server side is shown first in the narrow layout).
func serverShowsMessage(t *testing.T, m *model) string {
	t.Helper()
	m.scr.side = 0
	m.sync()
	s := ansi.Strip(m.render())
	if !strings.Contains(s, "hello from rdmatour") || strings.Contains(s, "all zero") {
		return s
	}
	return ""
}

// TestDemoHistoryShowsTheWrittenBytes: looking back at the client's WRITE
// in a live demo shows the server's buffer with the bytes the WRITE put
// there, as the live screen did at that step.
func TestDemoHistoryShowsTheWrittenBytes(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 100, 30)
	untilClientWrite(t, m)
	waitLanding(t, m)
	if s := serverShowsMessage(t, m); s != "" {
		t.Fatalf("live, right after the client's WRITE, the server's buffer does not show the message:\n%s", s)
	}
	for m.planPos < len(m.plan) && m.end.err == nil {
		press(t, m, "enter")
	}
	backToClientWrite(t, m)
	if s := serverShowsMessage(t, m); s != "" {
		t.Errorf("looking back at the client's WRITE, the server's buffer does not show the message:\n%s", s)
	}
}

// TestDemoReplayShowsTheWrittenBytes: a recorded demo, replayed, shows
// the server's buffer with the written bytes at the client's WRITE, both
// when Enter reaches it and when history looks back at it.
func TestDemoReplayShowsTheWrittenBytes(t *testing.T) {
	rec, err := record.Decode(bytes.NewReader(recordedDemo(t)), "demo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := rec.Runners()
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, sessions, text.EN, 100, 30)
	untilClientWrite(t, m)
	if s := serverShowsMessage(t, m); s != "" {
		t.Errorf("replay, at the client's WRITE, the server's buffer does not show the message:\n%s", s)
	}
	for m.planPos < len(m.plan) && m.end.err == nil {
		press(t, m, "enter")
	}
	backToClientWrite(t, m)
	if s := serverShowsMessage(t, m); s != "" {
		t.Errorf("replay, looking back at the client's WRITE, the server's buffer does not show the message:\n%s", s)
	}
}
