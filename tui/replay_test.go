package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/record"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// replaySessions opens a recording from testdata/replay.
func replaySessions(t testing.TB, name string) []steps.Runner {
	t.Helper()
	rec, err := record.ReadFile(filepath.Join("..", "testdata", "replay", name))
	if err != nil {
		t.Fatal(err)
	}
	sessions, err := rec.Runners()
	if err != nil {
		t.Fatal(err)
	}
	return sessions
}

// TestReplayInTheTUI: a demo recorded on rxe0 plays in the TUI with no
// device: REPLAY in the header, Enter steps through the recorded steps to
// the recorded result, and history shows an earlier step.
func TestReplayInTheTUI(t *testing.T) {
	m := newTestModel(t, replaySessions(t, "rxe-demo-imm.jsonl"), text.EN, 140, 45)
	if s := ansi.Strip(m.render()); !strings.Contains(s, "REPLAY") {
		t.Fatalf("no REPLAY in the header:\n%s", s)
	}
	for i := 0; m.planPos < len(m.plan); i++ {
		if i > len(m.plan) || m.end.err != nil {
			t.Fatalf("replay stuck at %d: %v", m.planPos, m.end.err)
		}
		press(t, m, "enter")
	}
	if err := m.verdict(); err != nil {
		t.Fatalf("verdict %v", err)
	}
	s := ansi.Strip(m.render())
	if !strings.Contains(strings.Join(strings.Fields(s), " "), `The server's buffer holds "hello from rdmatour client via RDMA WRITE"`) {
		t.Errorf("the recorded result is not shown:\n%s", s)
	}
	press(t, m, "[")
	press(t, m, "[")
	if s := ansi.Strip(m.render()); !strings.Contains(s, "looking at") || !strings.Contains(s, "rxe0") {
		t.Errorf("no history, or not the recorded device, in the replay:\n%s", s)
	}
	if err := m.shutdown(); err != nil {
		t.Errorf("closing a replay: %v", err)
	}
}

// TestHistoryOnAClientAlone: one client session (session index 0, role
// client): looking back shows that step's C call and page.
func TestHistoryOnAClientAlone(t *testing.T) {
	sessions := replaySessions(t, "rxe-send-client.jsonl")
	m := newTestModel(t, sessions, text.EN, 120, 40)
	for i := 0; i < 6; i++ {
		press(t, m, "enter")
	}
	press(t, m, "[")
	snap, _ := sessions[0].StepSnapshot(4)
	call := strings.SplitN(snap.Steps[4].Outcome.Call, "\n", 2)[0]
	s := ansi.Strip(m.render())
	if !strings.Contains(s, "looking at step 5 — press Esc for now") || !strings.Contains(s, call[:min(len(call), 30)]) {
		t.Errorf("looking at step 5: want the marker and its call %q:\n%s", call, s)
	}
	if !strings.Contains(s, "Explaining "+snap.Steps[4].ID) {
		t.Errorf("the explanation is not step 5's page:\n%s", s)
	}
}

// TestHistoryInRealTerminal replays a Soft-RoCE recording in tmux (no
// device and no peer needed): Enter through the steps, [ to look back,
// the marker on the captured screen, Esc back to now, q exits 0.
func TestHistoryInRealTerminal(t *testing.T) {
	t.Parallel() // waits on the screen, mostly: the tmux tests overlap
	bin, s := newTmux(t, fmt.Sprintf("rdmatour-hist-%d", os.Getpid()))
	file, _ := filepath.Abs("../testdata/replay/rxe-send-client.jsonl")
	cmdline := fmt.Sprintf("%s replay %s --lang en; echo \"EXIT=$?\"; exec sleep 600", bin, file)
	s.must("new-session", "-d", "-s", "rt", "-x", "120", "-y", "40", "-e", "LANG=C.UTF-8", "-e", "NO_COLOR=", cmdline)
	sc, ok := s.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "REPLAY") })
	if !ok {
		t.Fatalf("no REPLAY header after 10 s:\n%s", sc)
	}
	_, total, _ := progress(sc)
	for i := 0; ; i++ {
		done, _, _ := progress(sc)
		if done == total {
			break
		}
		if i > total+5 {
			t.Fatalf("the replay did not finish:\n%s", sc)
		}
		s.must("send-keys", "-t", "rt", "Enter")
		sc, _ = s.waitFor(5*time.Second, func(sc string) bool { d, _, _ := progress(sc); return d > done })
	}
	for i := 0; i < 5; i++ {
		s.must("send-keys", "-t", "rt", "[")
	}
	want := fmt.Sprintf("looking at step %d — press Esc for now", total-5)
	if sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return strings.Contains(sc, want) }); !ok {
		t.Errorf("no %q after five [:\n%s", want, sc)
	}
	if lines := strings.Split(strings.TrimRight(sc, "\n"), "\n"); len(lines) != 40 || !strings.Contains(lines[0], "REPLAY") {
		t.Errorf("the history screen is not a whole 120x40 frame with the header on top:\n%s", sc)
	}
	if _, now, _ := progress(sc); now != total {
		t.Errorf("looking back, the header's progress shows %d/%d, want the live %d", now, total, total)
	}
	s.must("send-keys", "-t", "rt", "Escape")
	if sc, ok = s.waitFor(5*time.Second, func(sc string) bool { return !strings.Contains(sc, "looking at") }); !ok {
		t.Errorf("Esc did not return to now:\n%s", sc)
	}
	s.must("send-keys", "-t", "rt", "q")
	if sc, ok = s.waitFor(10*time.Second, func(sc string) bool { return strings.Contains(sc, "EXIT=") }); !ok || !strings.Contains(sc, "EXIT=0") {
		t.Errorf("q after the replay: want EXIT=0:\n%s", sc)
	}
}

// TestReplayWording: a replay calls and releases nothing, and says so:
// Enter shows the recorded call, q just quits, and leaving early does not
// claim to have released anything (English and Chinese).
func TestReplayWording(t *testing.T) {
	for _, tt := range []struct {
		lang      text.Lang
		want, not []string
	}{
		{text.EN, []string{"Press enter to see this call as it was recorded", "q quit"},
			[]string{"make this call", "tears down"}},
		{text.ZH, []string{"按 enter 查看录制下来的这次调用", "q 退出"},
			[]string{"执行这个调用", "释放资源"}},
	} {
		m := newTestModel(t, replaySessions(t, "rxe-send-client.jsonl"), tt.lang, 120, 40)
		s := strings.Join(strings.Fields(ansi.Strip(m.render())), " ")
		for _, w := range tt.want {
			if !strings.Contains(s, w) {
				t.Errorf("%v: no %q on the replay's screen:\n%s", tt.lang, w, s)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(s, n) {
				t.Errorf("%v: %q on the replay's screen:\n%s", tt.lang, n, s)
			}
		}
		press(t, m, "enter")
		m.refresh()
		line := summaryLine(m.snaps, context.Canceled, false, true, tt.lang)
		if strings.Contains(line, "released") || strings.Contains(line, "释放") || !strings.Contains(line, text.Text{EN: "replay", ZH: "回放"}.In(tt.lang)) {
			t.Errorf("%v: summary after quitting a replay: %q", tt.lang, line)
		}
	}
}
