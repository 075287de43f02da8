package tui

import (
	"strings"
	"testing"
)

// The pages carry evidence and source markers as HTML comments: at the
// end of a line, on their own line under a paragraph or list item (where
// CommonMark starts an HTML block), or after a blank line. None shows.
func TestMarkdownHidesComments(t *testing.T) {
	src := "# T\n\nrxe does it. <!-- evidence: TestA -->\n\nrxe does it.\n<!-- source: kernel a.c f -->\n\n" +
		"- item\n  <!-- evidence: TestB -->\n- next <!-- source: verbs/sim/qp.go newQP -->\n\n<!-- evidence: TestC -->\n\nend"
	for _, noColor := range []bool{true, false} {
		got := strings.Join(newMarkdown(NewStyles(noColor)).render("en", "x", src, 60), "\n")
		if strings.Contains(got, "<!--") || strings.Contains(got, "evidence") || strings.Contains(got, "source:") {
			t.Errorf("noColor=%v: a comment shows:\n%s", noColor, got)
		}
	}
	if got := PlainPage("en", "x", src, 60); strings.Contains(got, "<!--") {
		t.Errorf("PlainPage shows a comment:\n%s", got)
	}
}

// A marker inside a paragraph leaves neither its text nor the space
// before it: words stay one space apart, Chinese joins without one.
func TestMarkdownCommentLeavesNoSpace(t *testing.T) {
	for src, want := range map[string]string{
		"one <!-- evidence: TestA -->\ntwo": "one two",
		"一 <!-- evidence: TestA -->\n二":     "一二",
		"a <!-- source: x y --> b":          "a b",
		"end. <!-- evidence: TestA -->":     "end.",
	} {
		if got := PlainPage("en", src, src, 40); got != want {
			t.Errorf("%q renders %q, want %q", src, got, want)
		}
	}
}
