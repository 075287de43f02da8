package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// TestExplanationPaneRendering: the cases a learner reported, as the
// screen shows them.
func TestExplanationPaneRendering(t *testing.T) {
	page := "# 接受连接\n\n## 这个调用做什么\n\n`rdma_accept(id, &param)` 的第二个\n参数是 &param，带着 private data。" +
		strings.Repeat("这一段很长的中文没有空格需要在任意两个汉字之间换行", 3) + "\n"
	r := newRig(t, steps.NotifySend)
	m := newTestModel(t, []steps.Runner{r.cli}, text.ZH, 80, 24, "NO_COLOR=1")
	m.page.Docs = func(lang, id string) (string, error) { return page, nil }
	m.page.Markdown = termtext.NewMarkdown(m.styles.Page())
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
			if termtext.Width(inner) >= 80-4-1 {
				full++
			}
		}
	}
	if full == 0 {
		t.Errorf("the Chinese paragraph does not fill its lines:\n%s", sc)
	}
}
