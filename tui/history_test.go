package tui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// TestHistoryByKeys: in the demo, [ selects finished steps one by one
// back in time; the screen says which step it shows, the call pane shows
// that step's C call, and the state is the one of that moment (the
// server's buffer with the client's message right after its WRITE). Esc and
// Enter return to now; Enter runs nothing while looking back.
func TestHistoryByKeys(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, text.EN, 140, 45)
	for m.planPos < len(m.plan) {
		if m.end.err != nil {
			t.Fatal(m.end.err)
		}
		press(t, m, "enter")
	}
	live := ansi.Strip(m.render())
	if strings.Contains(live, "looking at") {
		t.Fatal("the history marker shows before any key")
	}
	// Walk back to the client's post-write step.
	var seen int
	for !(m.look.on && m.look.side == 1 && m.tours[1][m.look.idx].ID == "post-write") {
		if seen++; seen > len(m.plan) {
			t.Fatal("[ never reached the client's post-write")
		}
		press(t, m, "[")
	}
	screen := ansi.Strip(m.render())
	n := m.look.idx + 1
	if !strings.Contains(screen, "looking at client step "+strconv.Itoa(n)+" — press Esc for now") {
		t.Errorf("no history marker for client step %d:\n%s", n, screen)
	}
	wantCall, _ := r.cli.StepSnapshot(m.look.idx)
	firstC := strings.SplitN(wantCall.Steps[m.look.idx].Outcome.Call, "\n", 2)[0]
	if !strings.Contains(strings.ReplaceAll(screen, "\n", " "), firstC[:40]) {
		t.Errorf("the call pane does not show post-write's C call %q:\n%s", firstC, screen)
	}
	if m.snaps[0].Result != nil {
		t.Error("looking at the client's WRITE, the server already shows its result")
	}
	if !strings.Contains(string(m.snaps[0].Data.Bytes), steps.DefaultMessage) {
		t.Error("the server's buffer lacks the message at the client's post-write step (the WRITE put it there)")
	}
	// One step earlier, then back later: ] moves forward.
	press(t, m, "[")
	before := m.look
	press(t, m, "]")
	if (m.look.side == before.side && m.look.idx == before.idx) || !m.look.on {
		t.Errorf("] did not move to the later step: %+v", m.look)
	}
	// Enter while looking back: back to now, nothing run.
	pos := m.planPos
	press(t, m, "enter")
	if m.look.on || m.planPos != pos {
		t.Errorf("enter in history: look=%+v planPos %d→%d", m.look, pos, m.planPos)
	}
	if s := ansi.Strip(m.render()); strings.Contains(s, "looking at") || !strings.Contains(s, "The server's buffer holds") {
		t.Errorf("back to now, the screen is not the live one:\n%s", s)
	}
	// Esc too.
	press(t, m, "[")
	press(t, m, "esc")
	if m.look.on {
		t.Error("esc did not return to now")
	}
}

// TestHistoryMarkerInChinese: the marker, and the help lists the keys.
func TestHistoryMarkerInChinese(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv}, text.ZH, 100, 30)
	for i := 0; i < 3; i++ {
		press(t, m, "enter")
	}
	press(t, m, "[")
	press(t, m, "[")
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "正在回看第 1 步 —— 按 Esc 回到当前") {
		t.Errorf("no Chinese history marker:\n%s", screen)
	}
	if m.snaps[0].Next != 1 {
		t.Errorf("the state shown is after step %d, want 1", m.snaps[0].Next)
	}
	press(t, m, "?")
	if help := ansi.Strip(m.render()); !regexp.MustCompile(`\[ \]\s+回看`).MatchString(help) || !regexp.MustCompile(`esc\s+回到当前`).MatchString(help) {
		t.Errorf("help does not list the history keys:\n%s", help)
	}
}

// TestHistoryUpDownOnTheStepsPane: with the steps pane focused, ↑ and ↓
// select steps instead of scrolling.
func TestHistoryUpDownOnTheStepsPane(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv}, text.EN, 120, 40)
	for i := 0; i < 4; i++ {
		press(t, m, "enter")
	}
	for m.focused().kind != pane.Steps {
		press(t, m, "tab")
	}
	press(t, m, "up")
	if !m.look.on || m.look.idx != 2 {
		t.Fatalf("↑ on the steps pane after step 4: look=%+v, want step 3 (index 2)", m.look)
	}
	m.Update(keyMsg("up"))
	if m.look.idx != 1 {
		t.Errorf("second ↑: index %d, want 1", m.look.idx)
	}
	press(t, m, "down")
	press(t, m, "down")
	if m.look.on {
		t.Errorf("↓ past the last finished step should be now: %+v", m.look)
	}
}
