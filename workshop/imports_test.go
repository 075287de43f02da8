package workshop_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWorkshopImports holds the package's import rule (its doc): it is a
// host of Sessions, so it may import steps, steps/privdata, verbs and
// text, and never a front end, record, export or a backend.
func TestWorkshopImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/rdmatour/rdmatour/"
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, mod+"workshop").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{"steps": true, "steps/privdata": true, "verbs": true, "text": true}
	for _, imp := range strings.Fields(string(out)) {
		if ours, ok := strings.CutPrefix(imp, mod); ok && !allowed[ours] {
			t.Errorf("workshop imports %s", ours)
		}
	}
}
