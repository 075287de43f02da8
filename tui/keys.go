package tui

import (
	"charm.land/bubbles/v2/key"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/tui/pane"
)

// keyMap is every binding; help texts follow the language.
type keyMap struct {
	Next, Lang, Lesson, Glossary, Help, Focus, Side, Up, Down, PgUp, PgDown, Top, Bottom, Quit key.Binding
	// Zoom shows the focused pane alone.
	Zoom key.Binding
	// History selects a finished step to look back at (history.go).
	History historyKeys
	// Predict answers a lesson's question (1-4).
	Predict key.Binding
}

func newKeyMap(lang steps.Lang) keyMap {
	t := func(en, zh string) string { return pane.Tr(lang, en, zh) }
	return keyMap{
		Next:     key.NewBinding(key.WithKeys("enter", "space", "n"), key.WithHelp("enter/space/n", t("run next step", "执行下一步"))),
		Lang:     key.NewBinding(key.WithKeys("l"), key.WithHelp("l", t("language EN/中文/both", "语言 EN/中文/双语"))),
		Lesson:   key.NewBinding(key.WithKeys("L"), key.WithHelp("L", t("lesson page ↔ step page", "课程讲解 ↔ 步骤讲解"))),
		Glossary: key.NewBinding(key.WithKeys("T"), key.WithHelp("T", t("glossary", "术语表"))),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", t("help", "帮助"))),
		Focus:    key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", t("next pane", "切换面板"))),
		Side:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", t("server/client", "切换 server/client"))),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", t("scroll up", "向上滚动"))),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", t("scroll down", "向下滚动"))),
		PgUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", t("page up", "上一页"))),
		PgDown:   key.NewBinding(key.WithKeys("pgdown", "f"), key.WithHelp("pgdn", t("page down", "下一页"))),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", t("top", "顶部"))),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", t("bottom", "底部"))),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", t("quit (tears down)", "退出（释放资源）"))),
		Zoom:     key.NewBinding(key.WithKeys("z"), key.WithHelp("z", t("zoom pane", "放大面板"))),
		History:  newHistoryKeys(lang),
		Predict:  key.NewBinding(key.WithKeys("1", "2", "3", "4"), key.WithHelp("1-4", t("predict (lesson)", "预测（课程）"))),
	}
}

// ShortHelp implements help.KeyMap. Most important first: at 80 columns
// the line is cut, and how to go on and how to quit must stay visible.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Quit, k.Help, k.Lesson, k.Lang, k.Focus, k.Zoom, k.Side}
}

// FullHelp implements help.KeyMap.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Lang, k.Help, k.Quit, k.History.Earlier, k.History.Now},
		{k.Focus, k.Zoom, k.Side, k.Lesson, k.Glossary},
		{k.Up, k.Down, k.PgUp, k.PgDown, k.Top, k.Bottom},
	}
}
