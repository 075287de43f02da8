package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/text"
)

// TestPredictionMarksAndTally: a wrong pick gets ✗ on the lesson line
// as soon as its side has the answer, and the end banner and the exit
// line count the predictions (the ux review: no ✓/✗, no tally).
func TestPredictionMarksAndTally(t *testing.T) {
	m := lessonDemoAsking(t, "bad-rkey", text.EN, 160, 50) // the server picked 2: right
	press(t, m, "3")                                       // the client: IBV_WC_LOC_PROT_ERR, wrong
	runUntil(t, m, 1, "poll-write")
	if line := ansi.Strip(m.lessonLine(160)); !strings.Contains(line, "IBV_WC_LOC_PROT_ERR (local protection error) ✗") {
		t.Errorf("no ✗ on the lesson line after the client's answer: %q", line)
	}
	for m.planPos < len(m.plan) && m.end.err == nil {
		press(t, m, "enter")
	}
	banner := ansi.Strip(strings.Join(m.banner(160), " "))
	if !strings.Contains(strings.Join(strings.Fields(banner), " "), "Predictions: 1 of 2 right.") {
		t.Errorf("no tally at the end:\n%s", banner)
	}
	if line := summaryLine(m.snaps, nil, true, false, text.EN); !strings.Contains(line, "; predictions: 1 of 2 right") {
		t.Errorf("no tally in the exit line: %s", line)
	}
	if line := summaryLine(m.snaps, nil, true, false, text.ZH); !strings.Contains(line, "预测：2 个里对了 1 个") {
		t.Errorf("no tally in the zh exit line: %s", line)
	}
}
