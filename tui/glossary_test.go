package tui

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// T shows the glossary in the explanation pane and T again the step's
// page; running a step goes back to the step's page.
func TestGlossaryKey(t *testing.T) {
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.srv}, text.EN, 120, 40, "NO_COLOR=1")
	press(t, m, "T")
	if got := m.explainTitle(); !strings.HasPrefix(got, "Glossary") {
		t.Fatalf("after T the explanation is %q", got)
	}
	if lines := strings.Join(m.explainLines(100), "\n"); !strings.Contains(lines, "glossary") {
		t.Errorf("the pane does not show the glossary page:\n%s", lines)
	}
	press(t, m, "T")
	if got := m.explainTitle(); strings.HasPrefix(got, "Glossary") {
		t.Errorf("T again keeps the glossary: %q", got)
	}
	press(t, m, "T")
	press(t, m, "enter")
	if got := m.explainTitle(); strings.HasPrefix(got, "Glossary") {
		t.Errorf("running a step keeps the glossary: %q", got)
	}
}
