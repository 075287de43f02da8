package termtext

import (
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/rdmatour/rdmatour/docs"
)

// TestEveryPageRendersClean draws every page in both languages and looks
// for the surprises a learner saw: an HTML entity applied where the
// source had none (&param as ¶m), raw heading marks, inline code cut
// across lines, and Chinese joined with a space at a soft line break.
func TestEveryPageRendersClean(t *testing.T) {
	softCJK := regexp.MustCompile(`(\p{Han})\n(\p{Han})`)
	for _, lang := range docs.Langs() {
		for _, id := range docs.IDs(lang) {
			src, err := docs.Page(lang, id)
			if err != nil {
				t.Fatal(err)
			}
			r := NewMarkdown(PageStyle{NoColor: true})
			lines := r.Render(lang, id, src, 60)
			text := strings.Join(lines, "\n")
			if strings.Contains(text, "¶") && !strings.Contains(src, "¶") {
				t.Errorf("%s/%s: an entity surprise (¶) not in the source", lang, id)
			}
			for _, l := range lines {
				if strings.HasPrefix(strings.TrimSpace(l), "## ") {
					t.Errorf("%s/%s: a raw heading: %q", lang, id, l)
				}
			}
			// Inline code shorter than a line is on one line.
			for _, c := range codeSpans(r, src) {
				c = "`" + c + "`"
				if Width(c) > 50 {
					continue
				}
				found := false
				for _, l := range lines {
					found = found || strings.Contains(l, c)
				}
				if !found {
					t.Errorf("%s/%s: inline code %s broken across lines", lang, id, c)
				}
			}
			// A soft break between two Chinese characters joins them.
			for _, mm := range softCJK.FindAllStringSubmatch(src, -1) {
				if sp := mm[1] + " " + mm[2]; strings.Contains(text, sp) && !strings.Contains(src, sp) {
					t.Errorf("%s/%s: a soft break became a space: %q", lang, id, sp)
				}
			}
		}
	}
}

// codeSpans lists the text of every inline code span of a page.
func codeSpans(r *Markdown, src string) []string {
	b := []byte(src)
	var out []string
	ast.Walk(r.md.Parse(text.NewReader(b)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if c, ok := n.(*ast.CodeSpan); ok && entering {
			out = append(out, string(codeText(c, b)))
		}
		return ast.WalkContinue, nil
	})
	return out
}
