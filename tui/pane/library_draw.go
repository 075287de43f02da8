package pane

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// indexHead is how many rows above the list the index keeps: the search
// field and a blank line.
const indexHead = 2

// Resize lays the library out for w×h cells in lang, after every
// message; revealed is the lesson page whose prediction is made (shown
// whole; other lesson pages stop at their question). View then only
// draws what it computed.
func (l *Library) Resize(st Styles, w, h int, lang text.Lang, revealed string) {
	l.size = libSize{w: w, h: h, lang: lang, revealed: revealed}
	if !l.IsOpen() || w < 6 || h < 3 {
		return
	}
	if l.at == nil {
		l.drawn = libDrawn{rows: l.indexRows(st, w-4)}
		l.drawn.off = l.listOffset(h - 2 - indexHead)
		return
	}
	lines, links := l.pageLines(st, l.at.id, w-4)
	if l.notice != (text.Text{}) {
		notice := termtext.WrapAll(strings.Split(l.notice.In(lang.Primary()), "\n"), w-4, "  ")
		lines = append(append(notice, ""), lines...)
	}
	l.drawn = libDrawn{lines: lines, links: links}
	if !l.at.placed {
		l.at.top, l.at.placed = termLine(lines, l.at.term, lang), true
	}
	l.at.link = min(l.at.link, max(0, len(links)-1))
	l.drawn.bar = l.linkBar(st, w)
	// The last screenful is as far as the page goes: a key up moves it.
	l.at.top = min(l.at.top, max(0, len(lines)-(h-len(l.drawn.bar)-2)))
}

// View draws the library at w×h cells.
func (l Library) View(st Styles, w, h int) []string {
	if l.at == nil {
		return l.indexView(st, w, h)
	}
	bar := l.drawn.bar
	title := l.pageTitle(l.at.id)
	page := Frame(st, title, l.drawn.lines, w, max(0, h-len(bar)), l.at.top, true)
	return termtext.Block(append(page, bar...), w, h)
}

func (l Library) indexView(st Styles, w, h int) []string {
	lang := l.size.lang
	count := fmt.Sprintf("  %d/%d", min(l.cursor+1, len(l.shown)), len(l.shown))
	search := text.Text{EN: "Search: ", ZH: "搜索："}.In(lang.Primary()) + l.query.Value() + "▏" + st.Dim.R(count)
	head := []string{st.Bold.R(search), ""}
	rows := l.drawn.rows
	if len(l.shown) == 0 {
		rows = []string{st.Dim.R(text.Text{EN: "(no page matches: Ctrl+U clears the search)", ZH: "（没有匹配的页面：Ctrl+U 清空搜索）"}.In(lang.Primary()))}
	}
	ih := max(0, h-2-indexHead)
	off := min(l.drawn.off, max(0, len(rows)-ih))
	body := append(head, rows[off:min(len(rows), off+ih)]...)
	title := text.Text{EN: "Pages", ZH: "页面索引"}.Label(lang)
	return Frame(st, title, body, w, h, 0, true)
}

// indexRows is the list under the search field: a heading per group,
// then its entries, the selected one marked.
func (l *Library) indexRows(st Styles, w int) []string {
	var rows []string
	group := libGroup(-1)
	for i, ei := range l.shown {
		e := l.entries[ei]
		if e.group != group {
			group = e.group
			if len(rows) > 0 {
				rows = append(rows, "")
			}
			rows = append(rows, st.Heading.R(termtext.Truncate(libGroups[group].In(l.size.lang.Primary()), w)))
		}
		t := titleIn(e.title, l.size.lang)
		if i == l.cursor {
			rows = append(rows, st.Current.R(termtext.Truncate("▸ "+t, w)))
		} else {
			rows = append(rows, termtext.Truncate("  "+t, w))
		}
	}
	return rows
}

// listOffset is the first row of the list to show in ih rows: the
// selected entry stays in view, with its heading when there is room.
func (l *Library) listOffset(ih int) int {
	sel := 0
	for i, r := range l.drawn.rows {
		if strings.HasPrefix(ansi.Strip(r), "▸ ") {
			sel = i
		}
	}
	return max(0, sel-ih+2)
}

// titleIn is an index title as the language asks: both, joined.
func titleIn(t text.Text, lang text.Lang) string {
	if lang == text.Both && t.ZH != "" && t.ZH != t.EN {
		return t.EN + " · " + t.ZH
	}
	return t.In(lang)
}

// pageTitle is the page view's frame title: the page's own title and
// its ID.
func (l Library) pageTitle(id string) string {
	for _, e := range l.entries {
		if e.id == id && e.term == (text.Text{}) {
			return titleIn(e.title, l.size.lang) + " · " + id
		}
	}
	return id
}

// pageLines is page id drawn to w cells in each language of the screen,
// and the links of the first.
func (l *Library) pageLines(st Styles, id string, w int) ([]string, []docs.Link) {
	var out []string
	var links []docs.Link
	for i, lang := range l.size.lang.Each() {
		if i > 0 {
			out = append(out, "", st.Dim.R(strings.Repeat("─", 3)+" 中文 "+strings.Repeat("─", max(0, w-9))), "")
		}
		md, variant := l.markdown(lang, id)
		if md == "" {
			out = append(out, st.Dim.R(text.Text{EN: "(no such page: Esc goes back)", ZH: "（没有这个页面：Esc 返回）"}.In(lang)))
			continue
		}
		if i == 0 {
			links = docs.Links(md)
		}
		if l.md == nil {
			out = append(out, termtext.Wrap(md, w)...)
			continue
		}
		out = append(out, l.md.Render(lang.String(), id+"#library"+variant, md, w)...)
	}
	return out, links
}

// markdown is the page's source as the library shows it: a lesson page
// other than the one whose prediction is made stops at its question, so
// that browsing does not give the answer away.
func (l *Library) markdown(lang text.Lang, id string) (md, variant string) {
	if l.pages == nil {
		return "", ""
	}
	md, err := l.pages(lang.String(), id)
	if err != nil || strings.TrimSpace(md) == "" {
		return "", ""
	}
	if docs.KindOf(id) != docs.KindLesson || id == l.size.revealed {
		return md, ""
	}
	cut := docs.BeforePrediction(md)
	if cut == md {
		return md, ""
	}
	more := text.Text{EN: "*The rest of this page says what happens: run the lesson (r) and make your prediction first.*",
		ZH: "*这一页后面的内容会揭晓结果：先运行这个课程（r），猜完再看。*"}.In(lang)
	return strings.TrimRight(cut, "\n") + "\n\n" + more + "\n", "-before"
}

// linkBar is the lines under the page: its links, the selected one
// marked, and the keys. It wraps to the lines it needs.
func (l Library) linkBar(st Styles, w int) []string {
	lang := l.size.lang.Primary()
	var b strings.Builder
	if len(l.drawn.links) == 0 {
		b.WriteString(st.Dim.R(text.Text{EN: "No links on this page.", ZH: "这一页没有链接。"}.In(lang)))
	} else {
		b.WriteString(text.Text{EN: "Links (Tab/Shift-Tab choose, Enter opens): ", ZH: "链接（Tab/Shift-Tab 选择，Enter 打开）："}.In(lang))
	}
	for i, k := range l.drawn.links {
		if i > 0 {
			b.WriteString(" · ")
		}
		if i == l.at.link {
			b.WriteString(st.Current.R("▸ " + k.Label))
		} else {
			b.WriteString(k.Label)
		}
	}
	return termtext.WrapStyled(b.String(), w-1, "  ")
}

// KeysLine is the footer while the library is open: its keys, for the
// index or the page being read, cut to w with "…" (? lists them all).
func (l Library) KeysLine(st Styles, w int) string {
	lang := l.size.lang.Primary()
	keys := text.Text{EN: "type to search · ↑↓ choose · Enter open · Esc back to the tour · Ctrl+C quit",
		ZH: "输入即搜索 · ↑↓ 选择 · Enter 打开 · Esc 回到教程 · Ctrl+C 退出"}.In(lang)
	if l.at != nil {
		keys = text.Text{EN: "Tab link · Enter follow · Esc back · ↑↓ scroll · P index · q quit",
			ZH: "Tab 选链接 · Enter 打开 · Esc 返回 · ↑↓ 滚动 · P 索引 · q 退出"}.In(lang)
		if docs.KindOf(l.at.id) == docs.KindLesson {
			keys = text.Text{EN: "r run this lesson · ", ZH: "r 运行这个课程 · "}.In(lang) + keys
		}
	}
	return st.Dim.R(termtext.Fit(" "+keys, w))
}

// termLine is the first line that shows the glossary term t, 0 if none.
func termLine(lines []string, t text.Text, lang text.Lang) int {
	term := t.In(lang.Primary())
	if term == "" {
		return 0
	}
	for i, line := range lines {
		if strings.Contains(ansi.Strip(line), term) {
			return i
		}
	}
	return 0
}
