package termtext

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/rdmatour/rdmatour/docs"
)

// TestCommentsNeverShow: a marker leaves no trace wherever it stands, and
// the text around it stays whole. Before, the plain runner and the
// explanation pane printed "<!-- source: … -->" lines; a marker that
// opened a line of text took that text with it once hidden as an HTML block.
func TestCommentsNeverShow(t *testing.T) {
	for src, want := range map[string]string{
		"rxe does it. <!-- evidence: TestA -->":                 "rxe does it.",
		"rxe does it.\n<!-- source: kernel a.c f -->":           "rxe does it.",
		"- item\n  <!-- evidence: TestB -->\n- next":            "• item\n• next",
		"text\n\n<!-- evidence: TestC -->\n\nend":               "text\n\nend",
		"one <!-- evidence: TestA -->\ntwo":                     "one two",
		"一 <!-- evidence: TestA -->\n二":                         "一二",
		"a <!-- source: verbs/sim/qp.go newQP --> b":            "a b",
		"- one <!-- evidence: TestA -->\n  more\n- two":         "• one more\n• two",
		"# T\n\nrxe.\n<!-- evidence: TestA -->\n\n## Next\n\nx": "T\n═\n\nrxe.\n\nNext\n────\n\nx",
		// A marker opening a line of text: the text continues the paragraph.
		"on rxe.\n<!-- evidence: TestA --> A UD send\ncompletion.": "on rxe. A UD send completion.",
		"- `E`: one\n  <!-- a --> <!-- b --> two\n- next":          "• `E`: one two\n• next",
		// A marker before a colon: the colon stays on its word.
		"on Soft-RoCE\n<!-- evidence: TestTwoHosts -->:\n\nx": "on Soft-RoCE:\n\nx",
		"在 rxe 上\n<!-- evidence: TestTwoHosts -->：\n\nx":      "在 rxe 上：\n\nx",
		// Fenced code is shown as written.
		"```\n<!-- kept -->\n```": "  <!-- kept -->",
	} {
		if got := PlainPage("en", "x", src, 60); got != want {
			t.Errorf("%q renders\n%q, want\n%q", src, got, want)
		}
	}
}

// TestEveryPageKeepsTextAfterMarkers renders every page and checks that no
// comment shows and that the text after a marker opening a line is there.
func TestEveryPageKeepsTextAfterMarkers(t *testing.T) {
	opening := regexp.MustCompile(`^\s*(?:<!--.*?-->\s*)+(\S.*)$`)
	squeeze := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || strings.ContainsRune("*_`", r) {
				return -1
			}
			return r
		}, s)
	}
	for _, lang := range docs.Langs() {
		for _, id := range docs.IDs(lang) {
			src, err := docs.Page(lang, id)
			if err != nil {
				t.Fatal(err)
			}
			got := PlainPage(lang, id, src, 60)
			if strings.Contains(got, "<!--") || strings.Contains(got, "-->") {
				t.Errorf("%s/%s: a comment shows on screen", lang, id)
			}
			flat := squeeze(got)
			for _, line := range strings.Split(src, "\n") {
				m := opening.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				words := squeeze(comment.ReplaceAllString(m[1], ""))
				if words != "" && !strings.Contains(flat, prefix(words, 12)) {
					t.Errorf("%s/%s: the text after a marker is gone: %q", lang, id, m[1])
				}
			}
		}
	}
}

// prefix is the first n runes of s.
func prefix(s string, n int) string {
	r := []rune(s)
	return string(r[:min(len(r), n)])
}
