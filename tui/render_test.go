package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
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
			r := newMarkdown(NewStyles(true))
			lines := r.render(lang, id, src, 60)
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
				if width(c) > 50 {
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
func codeSpans(r *markdown, src string) []string {
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

// TestExplanationPaneRendering: the cases a learner reported, as the
// screen shows them.
func TestExplanationPaneRendering(t *testing.T) {
	page := "# 接受连接\n\n## 这个调用做什么\n\n`rdma_accept(id, &param)` 的第二个\n参数是 &param，带着 private data。" +
		strings.Repeat("这一段很长的中文没有空格需要在任意两个汉字之间换行", 3) + "\n"
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.cli}, steps.LangZH, 80, 24, "NO_COLOR=1")
	m.docs = func(lang, id string) (string, error) { return page, nil }
	m.md = newMarkdown(m.styles)
	sc := ansi.Strip(m.render())
	for _, want := range []string{"`rdma_accept(id, &param)`", "的第二个参数是 &param", "这个调用做什么\n"} {
		if !strings.Contains(strings.ReplaceAll(sc, " │\n│ ", "\n"), strings.TrimSuffix(want, "\n")) {
			t.Errorf("no %q on screen:\n%s", want, sc)
		}
	}
	if strings.Contains(sc, "¶") || strings.Contains(sc, "## ") {
		t.Errorf("entity surprise or raw heading:\n%s", sc)
	}
	// The long Chinese line fills the pane: it breaks between characters,
	// not only at spaces.
	full := 0
	for _, l := range strings.Split(sc, "\n") {
		if strings.Contains(l, "汉字") || strings.Contains(l, "中文没有") {
			inner := strings.TrimRight(strings.Trim(l, "│"), " ")
			if width(inner) >= 80-4-1 {
				full++
			}
		}
	}
	if full == 0 {
		t.Errorf("the Chinese paragraph does not fill its lines:\n%s", sc)
	}
}
