package termtext

import (
	"charm.land/lipgloss/v2"
	"os/exec"
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		width     int
		want      []string
	}{
		{"headings are headings, not raw Markdown", "# Title\n\n## What the call does\n\nText.", 40,
			[]string{"Title", "═════", "", "What the call does", "──────────────────", "", "Text."}},
		{"&param is text, not the entity &para", "`rdma_accept(id, &param)` with &param", 40, []string{"`rdma_accept(id, &param)` with &param"}},
		{"entity references mean their character", "a &amp; b &copy; &#42;", 40, []string{"a & b © *"}},
		{"inline code stays on one line", "call `ibv_post_send(qp, &wr, &bad)` now", 32,
			[]string{"call", "`ibv_post_send(qp, &wr, &bad)`", "now"}},
		{"inline code across a source line break stays whole", "see `transport retry\ncounter exceeded` here", 40,
			[]string{"see `transport retry counter exceeded`", "here"}},
		{"inline code longer than a line still wraps, nothing lost", "`aaaa bbbb cccc`", 8, []string{"`aaaa", "bbbb", "cccc`"}},
		{"inline code longer than a line breaks at its spaces, not inside a name", "- `mr = ibv_reg_mr(pd, buf, 128, IBV_ACCESS_LOCAL_WRITE);`", 44,
			[]string{"• `mr = ibv_reg_mr(pd, buf, 128,", "  IBV_ACCESS_LOCAL_WRITE);`"}},
		{"Chinese soft break joins without a space", "第二个\n参数是 `x`", 40, []string{"第二个参数是 `x`"}},
		{"soft break joins words with a space", "one\ntwo", 40, []string{"one two"}},
		{"soft break joins Chinese without one", "中文\n接着写，\n（括号）", 40, []string{"中文接着写，（括号）"}},
		{"Chinese next to Latin keeps the space", "对端的\nGID", 40, []string{"对端的 GID"}},
		{"wraps at spaces", "aaa bbb ccc", 7, []string{"aaa bbb", "ccc"}},
		{"wraps between CJK characters", "一二三四五六", 6, []string{"一二三", "四五六"}},
		{"no line starts with Chinese punctuation", "一二三，四五", 6, []string{"一二", "三，四", "五"}},
		{"two closing marks in a row do not start a line", "一二三四）；", 10, []string{"一二三", "四）；"}},
		{"no line ends with Chinese opening punctuation", "一二三（四五）", 8, []string{"一二三", "（四五）"}},
		{"no line starts with the space it broke at", "是\n1024 x", 2, []string{"是", "10", "24", "x"}},
		{"code spans keep backticks without colour", "call `ibv_post_send` now", 40, []string{"call `ibv_post_send` now"}},
		{"bullets hang", "- first item here\n- second", 11, []string{"• first", "  item here", "• second"}},
		{"ordered list", "1. one\n2. two", 20, []string{"1. one", "2. two"}},
		{"emphasis and links show their text", "*What* is [it](x.md)?", 40, []string{"What is it?"}},
		{"code block", "```c\nint x = 1;\n```", 40, []string{"  int x = 1;"}},
	} {
		r := NewMarkdown(PageStyle{NoColor: true})
		got := r.Render("en", tt.name, tt.src, tt.width)
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		for _, l := range got {
			if Width(l) > tt.width {
				t.Errorf("%s: %q is wider than %d", tt.name, l, tt.width)
			}
		}
	}
}

// With colour, a style never runs past its line: each line closes
// what it opens (the pane's border follows it).
func TestMarkdownStylesPerLine(t *testing.T) {
	r := NewMarkdown(testColours())
	for _, l := range r.Render("en", "x", "## A heading that wraps\n\nsee `a_long_code_span_here` and **bold text that wraps**", 12) {
		if strings.Count(l, "\x1b[") > 0 && !strings.HasSuffix(l, "\x1b[m") {
			t.Errorf("line %q leaves a style open", l)
		}
	}
}

// The program links neither glamour nor chroma: chroma's package init
// alone doubled the time to the first frame.
func TestNoChromaInTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/rdmatour/rdmatour/cmd/rdmatour").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "chroma") || strings.Contains(dep, "glamour") {
			t.Errorf("cmd/rdmatour depends on %s", dep)
		}
	}
}

// testColours is a PageStyle with colour, as the TUI passes one.
func testColours() PageStyle {
	ns := lipgloss.NewStyle
	return PageStyle{
		Header:  StyleOf(ns().Bold(true)),
		Heading: StyleOf(ns().Foreground(lipgloss.Color("4")).Bold(true)),
		Call:    StyleOf(ns().Foreground(lipgloss.Color("6"))),
		Dim:     StyleOf(ns().Foreground(lipgloss.Color("8"))),
		Bold:    StyleOf(ns().Bold(true)),
		Key:     StyleOf(ns().Foreground(lipgloss.Color("4"))),
	}
}
