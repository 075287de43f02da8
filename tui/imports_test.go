package tui

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontEndImports holds the front ends' import rules (issue 18):
// tui/pane never imports tui, plain never imports tui (nor tui/pane), and
// termtext, which both use, imports no package of ours beyond what steps
// imports (it needs steps/privdata for EscapePeer).
func TestFrontEndImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/rdmatour/rdmatour/"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Skipf("go list: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	allowed := map[string]bool{"termtext": true}
	for _, d := range deps("steps") {
		allowed[strings.TrimPrefix(d, mod)] = true
	}
	for _, rule := range []struct {
		pkg       string
		forbidden func(dep string) bool
	}{
		{"tui/pane", func(d string) bool { return d == "tui" || d == "plain" }},
		{"plain", func(d string) bool { return d == "tui" || strings.HasPrefix(d, "tui/") }},
		{"termtext", func(d string) bool { return !allowed[d] }},
	} {
		for _, d := range deps(rule.pkg) {
			if ours, ok := strings.CutPrefix(d, mod); ok && rule.forbidden(ours) {
				t.Errorf("%s imports %s", rule.pkg, ours)
			}
		}
	}
}
