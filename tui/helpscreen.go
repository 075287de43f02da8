package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// The help screen (?): every key, how the panes are reached, the
// lessons, and the banner when the screen had to shorten it. It is a
// pane of its own (screenState.help): at 80×24 it is longer than the
// screen, and ↑↓ scroll it like any other pane.

// fullHelp is the help screen's lines at w cells.
func (m *model) fullHelp(w int) []string {
	lines := m.helpBanner(w)
	lines = append(lines, m.keyLines(w)...)
	lines = append(lines, "")
	lines = append(lines, termtext.Wrap(m.panesHelp(), w)...)
	lines = append(lines, "")
	lines = append(lines, termtext.Wrap(m.layoutHelp(text.Text{
		EN: "Each keypress makes one real verbs / rdma_cm call. The left panes say what the call is and why; the right ones show what it changed. Press ? again to close this help.",
		ZH: "每按一次键就执行一个真实的 verbs / rdma_cm 调用。左边讲这个调用是什么、为什么；右边显示它改变了什么。再按 ? 关闭帮助。"}), w)...)
	lines = append(lines, "")
	lines = append(lines, termtext.Wrap(m.lessonsHelp(), w)...)
	lines = append(lines, "")
	return append(lines, termtext.Wrap(text.Text{
		EN: "Pages (P): every step, lesson, concept and guide page and each glossary entry; type to search, ↑↓ and Enter open one. On a page, Tab and Shift-Tab choose a link (See also:), Enter follows it, Esc goes back, r runs a lesson.",
		ZH: "页面（P）：所有步骤、课程、概念和指南页面，以及术语表的每一条；输入即搜索，↑↓ 加 Enter 打开。在页面上，Tab 和 Shift-Tab 选择链接（另见：），Enter 打开，Esc 返回，r 运行课程。"}.In(m.lang), w)...)
}

// panesHelp says how every pane is reached, whatever the layout.
func (m *model) panesHelp() string {
	return text.Text{
		EN: "Every pane is in the tab cycle (the C call too): tab goes to the next, shift+tab to the previous; ↑↓ pgup pgdn home end scroll the one with the bright border, z shows it alone. A pane with more than it shows says a-b/n at its bottom; a cut title ends in …: z shows it whole (or, in a pane as wide as the screen, its first lines).",
		ZH: "每个面板（包括 C 调用）都在 tab 的循环里：tab 到下一个，shift+tab 到上一个；↑↓ pgup pgdn home end 滚动边框高亮的那个，z 让它占满屏幕。内容比显示的多时，面板底部写着 a-b/n；标题被截断时以 … 结尾：z 可看全（面板已和屏幕一样宽时，开头几行给出完整标题）。"}.In(m.lang)
}

// keyLines lists every enabled binding ("key  what it does"), in two
// columns where they fit, the description wrapped under itself: nothing
// is cut.
func (m *model) keyLines(w int) []string {
	var all []key.Binding
	for _, g := range m.keys.FullHelp() {
		for _, b := range g {
			if b.Enabled() {
				all = append(all, b)
			}
		}
	}
	kw := 0
	for _, b := range all {
		kw = max(kw, termtext.Width(b.Help().Key))
	}
	cw := w
	if (w-2)/2 >= kw+2+16 {
		cw = (w - 2) / 2
	}
	var entries [][]string
	for _, b := range all {
		entries = append(entries, m.keyEntry(b, kw, cw))
	}
	if cw == w {
		var out []string
		for _, e := range entries {
			out = append(out, e...)
		}
		return out
	}
	half := (len(entries) + 1) / 2
	left, right := flatten(entries[:half], cw), flatten(entries[half:], cw)
	out := make([]string, max(len(left), len(right)))
	for i := range out {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out[i] = termtext.Fit(l, cw) + "  " + r
	}
	return out
}

// keyEntry is one binding's lines in a column of cw cells.
func (m *model) keyEntry(b key.Binding, kw, cw int) []string {
	hs := m.help.Styles
	k := b.Help().Key
	pad := strings.Repeat(" ", kw-termtext.Width(k)+2)
	var out []string
	for i, l := range termtext.Wrap(b.Help().Desc, max(8, cw-kw-2)) {
		if i == 0 {
			out = append(out, hs.FullKey.Inline(true).Render(k)+pad+hs.FullDesc.Inline(true).Render(l))
		} else {
			out = append(out, strings.Repeat(" ", kw+2)+hs.FullDesc.Inline(true).Render(l))
		}
	}
	return out
}

// flatten puts blocks of lines one under the other, each line cw wide.
func flatten(blocks [][]string, cw int) []string {
	var out []string
	for _, b := range blocks {
		for _, l := range b {
			out = append(out, termtext.Fit(l, cw))
		}
	}
	return out
}
