package tui

import (
	"strings"

	"github.com/rdmatour/rdmatour/text"
)

// Words that depend on what is on screen: the help's sentence on the
// panes, and code spans in one-style lines.

// layoutHelp is the help's paragraph: para as written where the panes
// are as it says (left, right), else with the sentence on the panes for
// the layout on screen.
func (m *model) layoutHelp(para text.Text) string {
	where := m.whereThingsAre()
	if where == "" {
		return para.In(m.lang)
	}
	return text.Text{EN: "Each keypress makes one real verbs / rdma_cm call. ", ZH: "每按一次键就执行一个真实的 verbs / rdma_cm 调用。"}.In(m.lang) +
		where + text.Text{EN: " Press ? again to close this help.", ZH: "再按 ? 关闭帮助。"}.In(m.lang)
}

// whereThingsAre is the help's sentence on the panes, for the layout on
// screen (the same cases as layout); "" for the layouts with the call
// and explanation on the left and the state on the right.
func (m *model) whereThingsAre() string {
	switch {
	case m.scr.zoomed:
		return text.Text{EN: "One pane fills the screen: z shows all of them again.", ZH: "现在一个面板占满屏幕：按 z 恢复所有面板。"}.In(m.lang)
	case m.presenter():
		return ""
	case m.narrow():
		return text.Text{EN: "The call is on top; the tabs below explain it and show what it changed (tab and shift+tab go through the tabs and the call).", ZH: "上方是这个调用；下方的标签页讲解它，并显示它改变了什么（tab 和 shift+tab 在各标签页和调用之间切换）。"}.In(m.lang)
	case m.demo:
		return text.Text{EN: "The middle column says what the call is and why; the server's column (left) and the client's (right) show what it changed.", ZH: "中间一栏讲这个调用是什么、为什么；左栏（server）和右栏（client）显示它改变了什么。"}.In(m.lang)
	case m.scr.w >= 150:
		return text.Text{EN: "The middle column says what the call is and why; the right one shows what it changed; the left one lists the steps and the messages.", ZH: "中间一栏讲这个调用是什么、为什么；右栏显示它改变了什么；左栏列出各个步骤和消息。"}.In(m.lang)
	}
	return ""
}

// inlineCode shows a message's `code spans` as the explanation pane
// shows inline code: without the backticks, unless there is no colour
// (then the backticks are what marks the code). In a banner the whole
// line has one style, so the code is not set apart by colour.
func (m *model) inlineCode(s string) string {
	if m.styles.NoColor || strings.Count(s, "`") < 2 {
		return s
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '`')
		if open < 0 {
			break
		}
		closing := strings.IndexByte(s[open+1:], '`')
		if closing < 0 {
			break
		}
		b.WriteString(s[:open])
		b.WriteString(s[open+1 : open+1+closing])
		s = s[open+1+closing+1:]
	}
	b.WriteString(s)
	return b.String()
}
