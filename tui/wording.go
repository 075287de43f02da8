package tui

import (
	"strings"

	"github.com/rdmatour/rdmatour/tui/pane"
)

// Words that depend on what is on screen: the help's sentence on the
// panes, and code spans in one-style lines.

// layoutHelp is the help's paragraph: en or zh as written where the
// panes are as they say (left, right), else with the sentence on the
// panes for the layout on screen.
func (m *model) layoutHelp(en, zh string) string {
	where := m.whereThingsAre()
	if where == "" {
		return pane.Tr(m.lang, en, zh)
	}
	return pane.Tr(m.lang, "Each keypress makes one real verbs / rdma_cm call. ", "每按一次键就执行一个真实的 verbs / rdma_cm 调用。") +
		where + pane.Tr(m.lang, " Press ? again to close this help.", "再按 ? 关闭帮助。")
}

// whereThingsAre is the help's sentence on the panes, for the layout on
// screen (the same cases as layout); "" for the layouts with the call
// and explanation on the left and the state on the right.
func (m *model) whereThingsAre() string {
	t := func(en, zh string) string { return pane.Tr(m.lang, en, zh) }
	switch {
	case m.scr.zoomed:
		return t("One pane fills the screen: z shows all of them again.", "现在一个面板占满屏幕：按 z 恢复所有面板。")
	case m.presenter():
		return ""
	case m.narrow():
		return t("The call is on top; the tabs below explain it and show what it changed (tab switches tabs).",
			"上方是这个调用；下方的标签页讲解它，并显示它改变了什么（按 tab 切换标签页）。")
	case m.demo:
		return t("The middle column says what the call is and why; the server's column (left) and the client's (right) show what it changed.",
			"中间一栏讲这个调用是什么、为什么；左栏（server）和右栏（client）显示它改变了什么。")
	case m.scr.w >= 150:
		return t("The middle column says what the call is and why; the right one shows what it changed; the left one lists the steps and the messages.",
			"中间一栏讲这个调用是什么、为什么；右栏显示它改变了什么；左栏列出各个步骤和消息。")
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
