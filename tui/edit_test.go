package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// demoAt is a demo model at w×h whose next turn is step id.
func demoAt(t *testing.T, lang text.Lang, w, h int, id steps.StepID) (*model, *rig) {
	t.Helper()
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv, r.cli}, lang, w, h)
	for i := 0; i < 40; i++ {
		if side, idx, ok := m.nextTurn(); ok && m.tours[side][idx].ID == id {
			return m, r
		}
		press(t, m, "enter")
	}
	t.Fatalf("never reached %s", id)
	return nil, nil
}

func TestEditFormScratch(t *testing.T) {
	m, _ := demoAt(t, text.EN, 80, 24, steps.IDRegMRData)
	press(t, m, "e")
	t.Log("\n" + ansi.Strip(m.render()))
	press(t, m, "down")
	press(t, m, "space")
	press(t, m, "enter")
	t.Log("\n" + ansi.Strip(m.render()))
	press(t, m, "p")
	t.Log("\n" + ansi.Strip(m.render()))
	_ = strings.Contains
}
