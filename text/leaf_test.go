package text

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTextIsALeaf: every layer imports text, so text imports no package
// of ours.
func TestTextIsALeaf(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/rdmatour/rdmatour/"
	out, err := exec.Command("go", "list", "-deps", mod+"text").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, d := range strings.Fields(string(out)) {
		if strings.HasPrefix(d, mod) && d != mod+"text" {
			t.Errorf("text imports %s", d)
		}
	}
}
