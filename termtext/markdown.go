package termtext

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Explanation pages are Markdown, parsed with goldmark (CommonMark, no
// extensions) and drawn here as terminal lines. Not glamour: glamour
// links chroma, whose package init (lexer and style registries) took
// about half of the program's start-up, for syntax highlighting the
// pages do not need. Drawing it ourselves also wraps with this package's
// width rules, so Chinese soft line breaks join without a space and
// lines break between any two CJK characters.

// Markdown renders pages and keeps the result per page and width: a
// terminal UI draws several times a second, rendering takes a
// millisecond. It is not safe for concurrent use.
type Markdown struct {
	st    PageStyle
	md    parser.Parser
	pages map[mdKey][]string
}

type mdKey struct {
	lang, id string
	width    int
}

// NewMarkdown returns a renderer drawing pages in st.
func NewMarkdown(st PageStyle) *Markdown {
	p := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	return &Markdown{st: st, md: p, pages: map[mdKey][]string{}}
}

// Render returns page (lang, id) drawn to width cells, one string a
// line; src is the page's Markdown (it is parsed once per lang, id, width).
func (r *Markdown) Render(lang, id, src string, width int) []string {
	k := mdKey{lang, id, width}
	if l, ok := r.pages[k]; ok {
		return l
	}
	b := []byte(withoutComments(src))
	doc := r.md.Parse(text.NewReader(b))
	d := &mdDrawer{st: r.st, src: b}
	d.blocks(doc, width, "")
	lines := d.out
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	r.pages[k] = lines
	return lines
}

// mdDrawer walks one parsed page.
type mdDrawer struct {
	st  PageStyle
	src []byte
	out []string
}

// gap separates blocks by one empty line.
func (d *mdDrawer) gap() {
	if len(d.out) > 0 && d.out[len(d.out)-1] != "" {
		d.out = append(d.out, "")
	}
}

// blocks draws the children of n, each line prefixed with indent.
func (d *mdDrawer) blocks(n ast.Node, w int, indent string) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		d.block(c, w, indent)
	}
}

func (d *mdDrawer) block(n ast.Node, w int, indent string) {
	st := d.st
	switch n := n.(type) {
	case *ast.Heading:
		d.gap()
		d.heading(n, w, indent)
	case *ast.Paragraph, *ast.TextBlock:
		if n.Kind() == ast.KindParagraph {
			d.gap()
		}
		d.para(d.inlines(n, Style{}), w, indent, indent, Style{})
	case *ast.List:
		d.gap()
		num := n.Start
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			mark := "• "
			if n.IsOrdered() {
				mark = strconv.Itoa(num) + ". "
				num++
			}
			d.listItem(it, w, indent, mark)
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		d.gap()
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			line := strings.TrimRight(string(seg.Value(d.src)), "\n")
			for _, l := range Wrap(line, w-Width(indent)-2) {
				d.out = append(d.out, indent+"  "+st.Call.R(l))
			}
		}
	case *ast.Blockquote:
		d.gap()
		d.blocks(n, w, indent+st.Dim.R("│ "))
	case *ast.ThematicBreak:
		d.gap()
		d.out = append(d.out, indent+st.Dim.R(strings.Repeat("─", max(0, w-Width(indent)))))
	case *ast.HTMLBlock:
		// Comments (the pages' evidence markers) are gone before parsing
		// (comments.go); other HTML is shown as written.
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			d.out = append(d.out, indent+st.Dim.R(strings.TrimRight(string(seg.Value(d.src)), "\n")))
		}
	default:
		d.blocks(n, w, indent)
	}
}

// heading draws a heading as a heading, never as raw Markdown: in its
// style, and without colour underlined (═ for a title, ─ below it).
func (d *mdDrawer) heading(n *ast.Heading, w int, indent string) {
	st := d.st
	style := st.Heading
	if n.Level == 1 {
		style = st.Header
	}
	first := len(d.out)
	d.para(d.inlines(n, Style{}), w, indent, indent, style)
	if !st.NoColor {
		return
	}
	rule := "─"
	if n.Level == 1 {
		rule = "═"
	}
	long := 0
	for _, l := range d.out[first:] {
		long = max(long, Width(l)-Width(indent))
	}
	d.out = append(d.out, indent+strings.Repeat(rule, long))
}

// listItem draws one item: the mark on its first line, the rest indented
// under the text.
func (d *mdDrawer) listItem(it ast.Node, w int, indent, mark string) {
	first := len(d.out)
	hang := indent + strings.Repeat(" ", Width(mark))
	d.blocks(it, w, hang)
	// Tight items have no blank line before them: drop the gap the
	// paragraph left.
	if first < len(d.out) && d.out[first] == "" {
		d.out = append(d.out[:first], d.out[first+1:]...)
	}
	if first < len(d.out) {
		d.out[first] = indent + d.st.Dim.R(mark) + strings.TrimPrefix(d.out[first], hang)
	}
}

// span is a run of text in one style; glued text (inline code) is not
// broken across lines unless it is longer than a line.
type span struct {
	text  string
	style Style
	glued bool
}

// inlines flattens n's inline children into styled spans.
func (d *mdDrawer) inlines(n ast.Node, style Style) []span {
	var out []span
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			// Entity and numeric references (&amp;, &#42;) mean their
			// character; anything else with an & (&param) is text.
			out = append(out, span{string(util.ResolveNumericReferences(util.ResolveEntityNames(c.Segment.Value(d.src)))), style, false})
			switch {
			case c.HardLineBreak():
				out = append(out, span{"\n", style, false})
			case c.SoftLineBreak():
				out = append(out, span{softBreak, style, false})
			}
		case *ast.String:
			out = append(out, span{string(c.Value), style, false})
		case *ast.CodeSpan:
			code := string(codeText(c, d.src))
			if d.st.NoColor {
				code = "`" + code + "`"
			}
			out = append(out, span{code, d.st.Call, true})
		case *ast.Emphasis:
			out = append(out, d.inlines(c, d.st.Bold)...)
		case *ast.AutoLink:
			out = append(out, span{string(c.URL(d.src)), d.st.Key, false})
		case *ast.RawHTML:
			// Inline HTML draws nothing; comments never get here (comments.go).
		default: // links, images: their text
			out = append(out, d.inlines(c, style)...)
		}
	}
	return out
}

// codeText is an inline code span's text. A line ending inside the span
// is a space (CommonMark 6.1), not a line break: the span stays whole.
func codeText(n ast.Node, src []byte) []byte {
	var b []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b = append(b, t.Segment.Value(src)...)
		}
	}
	return bytes.ReplaceAll(b, []byte("\n"), []byte(" "))
}

// softBreak marks a soft line break until the spans are joined: a space
// between words, nothing between two CJK characters.
const softBreak = "\x00"

// para wraps spans to w cells: first and rest prefix the first and the
// following lines; base styles text that has no style of its own.
func (d *mdDrawer) para(spans []span, w int, first, rest string, base Style) {
	var plain strings.Builder
	var styles []Style // the style of each byte of plain
	var glue []bool    // no line break after this byte
	// Inline code is glued only when it fits on a line; a longer span
	// breaks at its own spaces rather than inside an identifier.
	avail := max(1, w-max(Width(first), Width(rest)))
	for i, s := range spans {
		t := s.text
		if t == softBreak {
			t = " "
			if cjkJoin(spans, i) {
				t = ""
			}
		}
		if s.style == (Style{}) {
			s.style = base
		}
		plain.WriteString(t)
		for j := range len(t) {
			styles = append(styles, s.style)
			glue = append(glue, s.glued && j < len(t)-1 && Width(t) <= avail)
		}
	}
	p := plain.String()
	pos := 0
	for i, line := range wrapGlued(p, max(1, w-Width(first)), glue) {
		// wrap drops the spaces it breaks at: find the line again.
		for pos < len(p) && !strings.HasPrefix(p[pos:], line) && (p[pos] == ' ' || p[pos] == '\n') {
			pos++
		}
		prefix := rest
		if i == 0 {
			prefix = first
		}
		if !strings.HasPrefix(p[pos:], line) { // cannot happen; stay readable
			d.out = append(d.out, prefix+base.R(line))
			continue
		}
		d.out = append(d.out, prefix+restyle(line, styles[pos:pos+len(line)]))
		pos += len(line)
	}
}

// restyle applies each byte's style to line, one escape per run.
func restyle(line string, styles []Style) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && styles[j] == styles[i] {
			j++
		}
		b.WriteString(styles[i].R(line[i:j]))
		i = j
	}
	return b.String()
}

// cjkJoin says the soft break at spans[i] needs no space: between two
// CJK characters, or next to full-width punctuation.
func cjkJoin(spans []span, i int) bool {
	var before, after rune
	for j := i - 1; j >= 0 && before == 0; j-- {
		if s := spans[j].text; s != "" && s != softBreak {
			before, _ = utf8.DecodeLastRuneInString(s)
		}
	}
	for j := i + 1; j < len(spans) && after == 0; j++ {
		if s := spans[j].text; s != "" && s != softBreak {
			after, _ = utf8.DecodeRuneInString(s)
		}
	}
	return isCJK(before) && isCJK(after) || isCJKPunct(before) || isCJKPunct(after)
}

// isCJK: Han, kana, Hangul and the full-width punctuation around them.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || isCJKPunct(r)
}

// isCJKPunct: CJK symbols and punctuation, full-width forms.
func isCJKPunct(r rune) bool { return r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef }

// PlainPage is a docs page as the plain runner prints it: the same
// rendering as the TUI's explanation pane, without colour (headings underlined,
// lists hung, entities resolved, inline code in backticks), w cells wide.
func PlainPage(lang, id, src string, w int) string {
	return strings.Join(NewMarkdown(PageStyle{NoColor: true}).Render(lang, id, src, w), "\n")
}
