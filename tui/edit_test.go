package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// demoAt is a demo model at w×h whose next turn is side's step id.
func demoAt(t *testing.T, lang text.Lang, w, h int, side steps.Role, id steps.StepID) (*model, *rig) {
	t.Helper()
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, lang, w, h)
	for range m.plan {
		if s, idx, ok := m.nextTurn(); ok && m.tours[s][idx].ID == id && m.tours[s][idx].Side == side {
			return m, r
		}
		press(t, m, "enter")
	}
	t.Fatalf("never reached the %s's %s", side, id)
	return nil, nil
}

// turnOf is the index in the demo plan of side's step id.
func turnOf(t *testing.T, m *model, side steps.Role, id steps.StepID) int {
	t.Helper()
	for i, turn := range m.plan {
		s := 0
		if turn.Side == steps.Client {
			s = 1
		}
		if turn.Side == side && m.tours[s][turn.Index].ID == id {
			return i
		}
	}
	t.Fatalf("no %s %s in the plan", side, id)
	return -1
}

// TestEditFormFrames: the form on the server's reg-mr-data at 80×24, in
// English and in Chinese: it fits, with the flags as toggles, the meaning
// and the keys.
func TestEditFormFrames(t *testing.T) {
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		t.Run(lang.String(), func(t *testing.T) {
			m, _ := demoAt(t, lang, 80, 24, steps.Server, steps.IDRegMRData)
			press(t, m, "e")
			screen := ansi.Strip(m.render())
			checkFrame(t, "form", m.render(), 80, 24)
			for _, want := range []string{"server · ", "reg-mr-data", "[x] IBV_ACCESS_REMOTE_WRITE", "[ ] IBV_ACCESS_REMOTE_READ"} {
				if !strings.Contains(screen, want) {
					t.Errorf("the form lacks %q:\n%s", want, screen)
				}
			}
			golden.RequireEqual(t, screen+"\n")
		})
	}
}

// TestEditFormManyFields: the client's post-write has more fields than
// 80×24 shows; the form scrolls to the cursor, and the last field (the
// message, typed) is reachable with ↑ from the first.
func TestEditFormManyFields(t *testing.T) {
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		t.Run(lang.String(), func(t *testing.T) {
			m, _ := demoAt(t, lang, 80, 24, steps.Client, steps.IDPostWrite)
			press(t, m, "e")
			press(t, m, "up") // wraps round to the last row (run), then the message
			press(t, m, "up")
			screen := ansi.Strip(m.render())
			checkFrame(t, "form", m.render(), 80, 24)
			if !strings.Contains(screen, "> [hello from rdmatour client via RDMA WRITE") {
				t.Errorf("the message's row is not in sight:\n%s", screen)
			}
			golden.RequireEqual(t, screen+"\n")
		})
	}
}

// TestEditFormKeys drives the form through a real program (teatest) at
// 80×24: e opens it on the server's reg-mr-data, a toggle and Esc leave
// the session as it was, a toggle and Enter set the edit, the panes show
// it before the step runs, and the step's C then marks it.
func TestEditFormKeys(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 80, 24)
	turn := turnOf(t, m, steps.Server, steps.IDRegMRData)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	for i := 0; i < turn; i++ {
		pressUntilSteps(t, enterKey(tm), i+1, r.srv, r.cli)
	}
	key := func(k string) { tm.Send(keyMsg(k)) }
	waitScreen := func(what string, f func(string) bool) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(out []byte) bool { return f(string(out)) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	key("e")
	waitScreen("the form", func(s string) bool { return strings.Contains(s, "[x] IBV_ACCESS_REMOTE_WRITE") })
	key("down")
	key("space") // REMOTE_WRITE off
	key("esc")
	// The panes come back (the renderer only sends what changed: the tab
	// bar is the form's absence).
	waitScreen("the panes", func(s string) bool { return strings.Contains(s, "Timeline") })
	key("e") // open again: Esc must have left the toggle where it was
	waitScreen("the form again", func(s string) bool { return strings.Contains(s, "[x] IBV_ACCESS_REMOTE_WRITE") })
	key("down")
	key("space")
	key("enter")
	waitScreen("the edit in the explanation", func(s string) bool { return strings.Contains(s, "Your edit") })
	key("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*model)
	edits := r.srv.Edits()
	if len(edits) != 1 || edits[0].Key() != "reg-mr-data.access" || edits[0].Value.Raw != "IBV_ACCESS_LOCAL_WRITE" {
		t.Errorf("server edits after Esc then Enter = %q, want only reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE", edits.Strings())
	}
	if err := final.shutdown(); err != nil {
		t.Fatal(err)
	}
}

// TestEditThenRun: after Enter the call pane shows the next call with
// the edited argument marked, the explanation says what the argument means; the step then
// runs with it (its C marks it), and the client, which never edited
// anything, is told on its failed step what the server changed.
func TestEditThenRun(t *testing.T) {
	m, r := demoAt(t, text.EN, 160, 50, steps.Server, steps.IDRegMRData)
	press(t, m, "e")
	for _, k := range []string{"down", "space", "enter"} {
		press(t, m, k)
	}
	call := strings.Join(ansiStrip(m.input().Content(pane.Call, 0, 70, 40).Lines), "\n")
	if !strings.Contains(strings.ReplaceAll(call, "\n", " "), "ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE /* you: was IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE */)") {
		t.Errorf("the call pane does not show the edit:\n%s", call)
	}
	explain := strings.Join(ansiStrip(m.explainLines(70)), "\n")
	if !strings.Contains(explain, "Your edit") || !strings.Contains(explain, "What the MR lets be done to its memory") {
		t.Errorf("the explanation does not say what the argument means:\n%s", explain)
	}
	press(t, m, "enter") // runs reg-mr-data with the edit
	if got := outcomeCall(r.srv, steps.IDRegMRData); !strings.Contains(got, "/* you: was") {
		t.Errorf("reg-mr-data's C does not mark the edit: %q", got)
	}
	for i := 0; i < len(m.plan) && m.end.err == nil; i++ {
		press(t, m, "enter")
	}
	var bitten bool
	for _, st := range r.cli.Snapshot().Steps {
		if st.Outcome != nil && strings.Contains(st.Outcome.Note.EN, "The server changed reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE") {
			bitten = true
		}
	}
	if !bitten {
		t.Errorf("no client step says what the server changed (tour ended with %v)", m.end.err)
	}
	// The tour ended on the edit's consequence: Try next (the end
	// banner's line) offers the same run with the form's edit put back.
	if next := guide.NextToTryShort(m.tourConfig()).EN; !strings.Contains(next, "your edits restored (leave out --edit") ||
		!strings.Contains(next, "reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE)") {
		t.Errorf("Try next does not offer to restore the edit: %q", next)
	}
}

// TestEditAsk: p after an edit asks what will happen; 1-5 answer; p with
// no edit, and e on a step with nothing to edit, say why nothing opened.
func TestEditAsk(t *testing.T) {
	m, r := demoAt(t, text.EN, 160, 50, steps.Server, steps.IDRegMRData)
	press(t, m, "p")
	if s := ansi.Strip(m.render()); !strings.Contains(s, "p asks what an edit will do") {
		t.Errorf("p without an edit says nothing:\n%s", s)
	}
	press(t, m, "e")
	for _, k := range []string{"down", "space", "enter", "p"} {
		press(t, m, k)
	}
	pred := r.srv.Prediction()
	if !pred.Pending() || len(pred.Choices) != 5 {
		t.Fatalf("after p: %+v", pred)
	}
	press(t, m, "5")
	if got := r.srv.Prediction().Picked; got != 4 {
		t.Errorf("5 picked %d", got)
	}
}

func ansiStrip(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return out
}

func outcomeCall(s *steps.Session, id steps.StepID) string {
	for _, st := range s.Snapshot().Steps {
		if st.ID == string(id) && st.Outcome != nil {
			return st.Outcome.Call
		}
	}
	return ""
}

// TestEditInALesson: a lesson's preset is the lesson's edit, not the
// learner's: the panes say so, and p asks for an edit of the learner's
// own first.
func TestEditInALesson(t *testing.T) {
	m := lessonDemo(t, "no-remote-write", text.EN, 160, 50)
	for range m.plan {
		if s, idx, ok := m.nextTurn(); ok && s == 0 && m.tours[s][idx].ID == steps.IDRegMRData {
			break
		}
		press(t, m, "enter")
	}
	explain := strings.Join(ansiStrip(m.explainLines(70)), "\n")
	if !strings.Contains(explain, "The lesson's edit") || strings.Contains(explain, "Your edit") {
		t.Errorf("the preset is not called the lesson's:\n%s", explain)
	}
	call := strings.Join(ansiStrip(m.input().Content(pane.Call, 0, 70, 40).Lines), " ")
	if !strings.Contains(strings.ReplaceAll(call, "\n", " "), "IBV_ACCESS_LOCAL_WRITE /* lesson no-remote-write: was IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE */") {
		t.Errorf("the call pane does not mark the lesson's edit:\n%s", call)
	}
	press(t, m, "p")
	if got := m.scr.edit.notice.EN; !strings.Contains(got, "press e first") {
		t.Errorf("p on a lesson's preset: notice %q", got)
	}
}

// TestEditFormGivenValues: on the client's post-write the remote address
// is shown as the base remote_info gave plus an offset, the rkey as the
// given key or another value.
func TestEditFormGivenValues(t *testing.T) {
	m, r := demoAt(t, text.EN, 160, 50, steps.Client, steps.IDPostWrite)
	press(t, m, "e")
	info := r.cli.Snapshot().Remote.Info
	screen := strings.Join(strings.Fields(ansi.Strip(m.render())), " ")
	for _, want := range []string{fmt.Sprintf("0x%x + offset", info.Addr), fmt.Sprintf("rkey (0x%x, given)", info.RKey)} {
		if !strings.Contains(screen, want) {
			t.Errorf("the form lacks %q:\n%s", want, screen)
		}
	}
}
