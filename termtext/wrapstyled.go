package termtext

import "strings"

// Nothing is cut silently: a styled line wider than its pane (a table
// row, a packet's headers, a long hex value) wraps onto the next lines,
// indented by hang, breaking after a space where it can and anywhere
// (between two cells) where it cannot. Styles open at the break are
// closed at the end of the line and opened again on the next one.

// piece is one grapheme, or one escape sequence (zero width).
type piece struct {
	v   string
	w   int
	esc bool
}

// WrapStyled breaks s into lines of at most w cells; every line after the
// first starts with hang.
func WrapStyled(s string, w int, hang string) []string {
	if Width(s) <= w || w <= 0 {
		return []string{s}
	}
	if Width(hang) >= w/2 {
		hang = ""
	}
	var ps []piece
	g := cells().StringGraphemes(s)
	for g.Next() {
		v := g.Value()
		ps = append(ps, piece{v: v, w: g.Width(), esc: strings.HasPrefix(v, "\x1b")})
	}
	var out []string
	style := "" // the escape sequences in force where the current line starts
	for start := 0; start < len(ps); {
		lim := w
		if len(out) > 0 {
			lim -= Width(hang)
		}
		end, brk, field, used := start, -1, -1, 0
		for end < len(ps) && used+ps[end].w <= lim {
			if ps[end].v == " " && end > start {
				brk = end // break before this space
				if end+1 < len(ps) && ps[end+1].v == " " && used >= lim/2 {
					field = end // between two fields ("k v  k v"): better
				}
			}
			used += ps[end].w
			end++
		}
		if end < len(ps) {
			full := ps[end].v == " " && (end+1 >= len(ps) || ps[end+1].v == " " || field < 0)
			switch {
			case full: // the line is full just before a space: break there
			case field > start:
				end = field
			case brk > start:
				end = brk
			}
		}
		if end == start {
			end++ // a grapheme wider than the line: take it anyway
		}
		prefix := ""
		if len(out) > 0 {
			prefix = hang
		}
		line, open := styledLine(ps[start:end], prefix, style)
		out = append(out, line)
		style = open
		for end < len(ps) && ps[end].v == " " {
			end++ // a line does not start with the space it broke at
		}
		start = end
	}
	return out
}

// styledLine is one line of pieces after prefix, opening style (the
// escapes in force where it starts) and closing whatever is open at its
// end; open is what is in force there.
func styledLine(ps []piece, prefix, style string) (line, open string) {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(style)
	open = style
	for _, p := range ps {
		b.WriteString(p.v)
		if p.esc {
			open = nextStyle(open, p.v)
		}
	}
	line = strings.TrimRight(b.String(), " ")
	if open != "" {
		line += "\x1b[m"
	}
	return line, open
}

// nextStyle is the style in force after escape sequence esc.
func nextStyle(cur, esc string) string {
	if esc == "\x1b[m" || esc == "\x1b[0m" {
		return ""
	}
	if strings.HasSuffix(esc, "m") {
		return cur + esc
	}
	return cur
}

// WrapAll applies WrapStyled to every line, each continuation indented
// under the line's own indentation plus hang.
func WrapAll(lines []string, w int, hang string) []string {
	var out []string
	for _, l := range lines {
		if Width(l) <= w {
			out = append(out, l)
			continue
		}
		indent := strings.Repeat(" ", leadingSpaces(l))
		out = append(out, WrapStyled(l, w, indent+hang)...)
	}
	return out
}

// leadingSpaces counts the spaces before the first visible character,
// skipping escape sequences.
func leadingSpaces(s string) int {
	n := 0
	g := cells().StringGraphemes(s)
	for g.Next() {
		switch v := g.Value(); {
		case v == " ":
			n++
		case strings.HasPrefix(v, "\x1b"):
		default:
			return n
		}
	}
	return n
}
