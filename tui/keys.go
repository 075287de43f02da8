package tui

import (
	"charm.land/bubbles/v2/key"

	"github.com/rdmatour/rdmatour/text"
)

// keyMap is every binding; help texts follow the language.
type keyMap struct {
	Next, Lang, Lesson, Pages, Glossary, Help, Focus, Side, Up, Down, PgUp, PgDown, Top, Bottom, Quit key.Binding
	// Zoom shows the focused pane alone.
	Zoom key.Binding
	// History selects a finished step to look back at (history.go).
	History historyKeys
	// Predict answers a lesson's question (1-4).
	Predict key.Binding
}

func newKeyMap(lang text.Lang) keyMap {
	return keyMap{
		Next:     key.NewBinding(key.WithKeys("enter", "space", "n"), key.WithHelp("enter/space/n", text.Text{EN: "run next step", ZH: "下一步"}.In(lang))),
		Lang:     key.NewBinding(key.WithKeys("l"), key.WithHelp("l", text.Text{EN: "language EN/中文/both", ZH: "语言 EN/中文/双语"}.In(lang))),
		Lesson:   key.NewBinding(key.WithKeys("L"), key.WithHelp("L", text.Text{EN: "lesson page ↔ step page", ZH: "课程讲解 ↔ 步骤讲解"}.In(lang))),
		Pages:    key.NewBinding(key.WithKeys("P"), key.WithHelp("P", text.Text{EN: "pages", ZH: "页面"}.In(lang))),
		Glossary: key.NewBinding(key.WithKeys("T"), key.WithHelp("T", text.Text{EN: "glossary", ZH: "术语表"}.In(lang))),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", text.Text{EN: "help", ZH: "帮助"}.In(lang))),
		Focus:    key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab/shift+tab", text.Text{EN: "panes", ZH: "切换面板"}.In(lang))),
		Side:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", text.Text{EN: "server/client", ZH: "切换 server/client"}.In(lang))),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", text.Text{EN: "scroll up", ZH: "向上滚动"}.In(lang))),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", text.Text{EN: "scroll down", ZH: "向下滚动"}.In(lang))),
		PgUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", text.Text{EN: "page up", ZH: "上一页"}.In(lang))),
		PgDown:   key.NewBinding(key.WithKeys("pgdown", "f"), key.WithHelp("pgdn", text.Text{EN: "page down", ZH: "下一页"}.In(lang))),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", text.Text{EN: "top", ZH: "顶部"}.In(lang))),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", text.Text{EN: "bottom", ZH: "底部"}.In(lang))),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", text.Text{EN: "quit (tears down)", ZH: "退出（释放资源）"}.In(lang))),
		Zoom:     key.NewBinding(key.WithKeys("z"), key.WithHelp("z", text.Text{EN: "zoom pane", ZH: "放大面板"}.In(lang))),
		History:  newHistoryKeys(lang),
		Predict:  key.NewBinding(key.WithKeys("1", "2", "3", "4"), key.WithHelp("1-4", text.Text{EN: "predict (lesson)", ZH: "预测（课程）"}.In(lang))),
	}
}

// ShortHelp implements help.KeyMap: the footer, which wraps to as many
// lines as it needs. Most important first, so that how to go on and how
// to quit are on its first line.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Quit, k.Help, k.Lesson, k.Pages, k.Lang, k.Focus, k.Zoom, k.Side}
}

// FullHelp implements help.KeyMap.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Lang, k.Help, k.Quit, k.History.Earlier, k.History.Now},
		{k.Focus, k.Zoom, k.Side, k.Lesson, k.Pages, k.Glossary},
		{k.Up, k.Down, k.PgUp, k.PgDown, k.Top, k.Bottom},
	}
}
