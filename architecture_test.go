// Package rdmatour_test holds the checks that keep ARCHITECTURE.md true:
// which package may import which, and that every package says its job.
package rdmatour_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rdmatour/rdmatour/"

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath string
	Doc        string
	Imports    []string // non-test imports
	GoFiles    []string
}

// forbidden lists, per package (a prefix ending in "/" also covers what
// is under it), the packages of ours it must never import. It is
// ARCHITECTURE.md's arrows, turned round: what is not allowed.
var forbidden = map[string][]string{
	// The engine knows no front end, no host and no backend.
	"steps": {"workshop", "record", "export", "guide", "tui", "tui/pane", "plain", "docs", "termtext",
		"verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"steps/cprint":   {"steps", "steps/privdata", "tui", "plain", "workshop", "record", "export", "guide", "docs"},
	"steps/privdata": {"steps", "steps/cprint", "tui", "plain", "workshop", "record", "export", "guide", "docs", "text", "termtext"},
	"tui/pane":       {"tui", "plain", "workshop", "record", "export", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"tui/editform":   {"tui", "steps", "plain", "workshop", "record", "export", "verbs", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"tui":            {"plain", "record", "export", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"plain":          {"tui", "tui/pane", "record", "export", "workshop", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"workshop":       {"tui", "tui/pane", "plain", "record", "export", "guide", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"record":         {"tui", "tui/pane", "plain", "workshop", "export", "guide", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"export":         {"tui", "tui/pane", "plain", "workshop", "record", "guide", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"guide":          {"tui", "tui/pane", "plain", "workshop", "record", "export", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	"doctor":         {"steps", "tui", "plain", "workshop", "record", "export", "guide", "verbs/sim", "cmd/rdmatour"},
	"exercise":       {"tui", "tui/pane", "plain", "workshop", "record", "guide", "verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
	// Progress is a file and its lock: it knows nothing of the tours.
	"progress": {""},
	// The leaves import nothing of ours.
	"text":     {""},
	"termtext": {""},
	"verbs":    {""},
	"wire":     {""},
	"docs":     {""},
	"perftest": {""},

	// rdmatour pcap reads files with the wire package's decoders only:
	// no session, no device, no front end.
	"pcapview": {"steps", "steps/cprint", "steps/privdata", "verbs", "verbs/sim", "verbs/rdmacore", "tui", "tui/pane",
		"plain", "workshop", "record", "export", "guide", "doctor", "docs", "explain", "cmd/rdmatour"},
	// rdmatour explain reads names from verbs and wire, what a NAK means
	// from pcapview and lessons from the steps registry; it drives nothing.
	"explain": {"tui", "tui/pane", "plain", "workshop", "record", "export", "guide", "doctor", "docs",
		"verbs/sim", "verbs/rdmacore", "cmd/rdmatour"},
}

// leafExceptions are the packages of ours a leaf may still import.
var leafExceptions = map[string][]string{
	"termtext": {"text", "steps/privdata"}, // privdata is a leaf too: the peer bytes termtext escapes
}

// required are the packages the layout has, each with a package doc.
var required = []string{"text", "termtext", "steps", "steps/cprint", "steps/privdata", "workshop", "record",
	"export", "guide", "plain", "tui", "tui/pane", "verbs", "verbs/sim", "verbs/rdmacore", "wire", "doctor", "docs", "pcapview", "explain", "exercise", "progress", "perftest", "cmd/rdmatour"}

func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// TestImportRules fails when a package imports one that ARCHITECTURE.md
// says it must not, and when only cmd may pick a backend but another
// package imports one.
func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	for name, p := range pkgs {
		for _, imp := range p.Imports {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if (dep == "verbs/sim" || dep == "verbs/rdmacore") && name != "cmd/rdmatour" && !strings.HasPrefix(name, "verbs/") {
				t.Errorf("%s imports %s: only cmd/rdmatour picks a backend", name, dep)
			}
			bans, ok := forbidden[name]
			if !ok {
				continue
			}
			if slices.Equal(bans, []string{""}) {
				if !slices.Contains(leafExceptions[name], dep) {
					t.Errorf("%s imports %s: it is a leaf and imports nothing of ours", name, dep)
				}
				continue
			}
			if slices.Contains(bans, dep) {
				t.Errorf("%s imports %s: ARCHITECTURE.md forbids that arrow", name, dep)
			}
		}
	}
}

// TestEveryPackageSaysItsJob: the layout's packages exist, and each has a
// package doc comment saying what it is for.
func TestEveryPackageSaysItsJob(t *testing.T) {
	pkgs := listPackages(t)
	for _, name := range required {
		p, ok := pkgs[name]
		if !ok {
			t.Errorf("package %s is missing (ARCHITECTURE.md lists it)", name)
			continue
		}
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("package %s has no package doc comment", name)
		}
	}
}
