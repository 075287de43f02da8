package rdmatour_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The project's size limits (ARCHITECTURE.md): a file that outgrows them
// is doing more than one job.
const (
	maxFileLines = 400
	maxFuncLines = 60
)

// TestFilesAndFunctionsFitTheLimits checks every non-test Go file that git
// tracks: at most maxFileLines lines, and no function over maxFuncLines.
func TestFilesAndFunctionsFitTheLimits(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	fset := token.NewFileSet()
	for _, path := range strings.Fields(string(out)) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			continue // deleted in the work tree
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s has %d lines (at most %d): split it by job", path, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if lines > maxFuncLines {
				t.Errorf("%s: func %s has %d lines (at most %d)", path, fn.Name.Name, lines, maxFuncLines)
			}
		}
	}
}

// maxFields bounds a type that holds run-time state; the root types
// (steps.Session, the TUI's model) have a tighter bound.
const (
	maxFields     = 25
	maxRootFields = 20
)

// valueTypes mirror a C struct, a wire message, a snapshot or the command
// line: their size is the size of what they mirror.
var valueTypes = map[string]string{
	"steps/snapshot.go Snapshot":  "an immutable copy of one side's state",
	"wire/cm.go REQ":              "the CM REQ MAD's fields",
	"cmd/rdmatour/cli.go options": "the command line's flags",
}

var rootTypes = map[string]bool{"steps/session.go Session": true, "tui/model.go model": true}

// TestTypesStaySmall: no struct holding run-time state has more than
// maxFields fields, and Session and the TUI's model at most maxRootFields.
func TestTypesStaySmall(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "*.go").Output()
	if err != nil {
		t.Skipf("git ls-files: %v", err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, path := range strings.Fields(string(out)) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			key := path + " " + ts.Name.Name
			seen[key] = true
			fields := 0
			for _, fl := range st.Fields.List {
				fields += max(1, len(fl.Names))
			}
			limit := maxFields
			if rootTypes[key] {
				limit = maxRootFields
			}
			if _, exempt := valueTypes[key]; fields > limit && !exempt {
				t.Errorf("%s has %d fields (at most %d): give its parts types of their own", key, fields, limit)
			}
			return true
		})
	}
	for key := range rootTypes {
		if !seen[key] {
			t.Errorf("%s is gone: update rootTypes", key)
		}
	}
}
