package termtext

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// Width handling. Every width in this package is measured with
// displaywidth and East Asian ambiguous characters counted as one cell,
// whatever RUNEWIDTH_EASTASIAN says: the terminals rdmatour runs in draw
// box-drawing characters, arrows and bullets one cell wide, and a layout
// measured otherwise would come out ragged (lipgloss reads that variable
// at package init, before any code of ours could unset it). ANSI escape
// sequences count zero.

// cells is the measuring configuration (a value, never mutated).
func cells() displaywidth.Options {
	return displaywidth.Options{EastAsianWidth: false, ControlSequences: true}
}

// Width is the number of terminal cells s occupies (one line).
func Width(s string) int { return cells().String(s) }

// Truncate cuts s to at most w cells, the last one "…", keeping escape
// sequences intact and closing any style it cut through.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	// Cut text ends with "…": nothing is cut silently.
	out := cells().TruncateString(s, w-1, "") + "…"
	if strings.IndexByte(s, 0x1b) >= 0 {
		out += "\x1b[m"
	}
	return out
}

// Fit makes s exactly w cells wide: truncated, then padded with spaces.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Truncate(s, w)
	if n := Width(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// FitRight right-aligns s in w cells.
func FitRight(s string, w int) string {
	s = Truncate(s, w)
	if n := Width(s); n < w {
		s = strings.Repeat(" ", w-n) + s
	}
	return s
}

// FitAligned is Fit, or FitRight when right is set: a table's cell.
func FitAligned(s string, w int, right bool) string {
	if right {
		return FitRight(s, w)
	}
	return Fit(s, w)
}

// Center centres s in w cells.
func Center(s string, w int) string {
	s = Truncate(s, w)
	n := Width(s)
	left := (w - n) / 2
	return Fit(strings.Repeat(" ", left)+s, w)
}

// Block makes lines exactly w wide and h tall.
func Block(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// JoinColumns puts equally tall blocks side by side.
func JoinColumns(cols ...[]string) []string {
	h := 0
	for _, c := range cols {
		h = max(h, len(c))
	}
	out := make([]string, h)
	var b strings.Builder
	for i := 0; i < h; i++ {
		b.Reset()
		for _, c := range cols {
			if i < len(c) {
				b.WriteString(c[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// Wrap breaks plain text into lines of at most w cells, preferring to
// break after a space or a comma; CJK text may break anywhere.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapLine(para, w)...)
	}
	return out
}

func wrapLine(s string, w int) []string { return wrapLineGlued(s, w, nil) }

// wrapGlued is wrap where glue[i] says the byte at i belongs to a run not
// to be broken (inline code): no break opportunity inside it.
func wrapGlued(s string, w int, glue []bool) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	start := 0
	for _, para := range strings.Split(s, "\n") {
		var g []bool
		if glue != nil {
			g = glue[start : start+len(para)]
		}
		out = append(out, wrapLineGlued(para, w, g)...)
		start += len(para) + 1
	}
	return out
}

func wrapLineGlued(s string, w int, glue []bool) []string {
	if Width(s) <= w {
		return []string{s}
	}
	glued := func(at int) bool { return glue != nil && at < len(glue) && glue[at] }
	at := 0 // byte offset of the grapheme in s
	var out []string
	var line strings.Builder
	lw := 0
	lastBreak := -1 // byte offset in line just after a break opportunity
	prevBreak := -1 // the opportunity before lastBreak
	g := cells().StringGraphemes(s)
	for g.Next() {
		v, cw := g.Value(), g.Width()
		at += len(v)
		if lw+cw > w {
			cur := line.String()
			if v == " " && !glued(at-len(v)-1) {
				// The line is full just before a space: break there.
				lastBreak = len(cur)
			}
			if noLineStart(v) && lastBreak == len(cur) && prevBreak > 0 {
				// Chinese punctuation does not start a line: the
				// character before it goes down with it.
				lastBreak = prevBreak
			}
			if lastBreak > 0 && lastBreak <= len(cur) {
				out = append(out, strings.TrimRight(cur[:lastBreak], " "))
				// A line does not start with the space it broke at.
				rest := strings.TrimLeft(cur[lastBreak:], " ")
				line.Reset()
				line.WriteString(rest)
				lw = Width(rest)
			} else {
				out = append(out, strings.TrimRight(cur, " "))
				line.Reset()
				lw = 0
			}
			lastBreak, prevBreak = -1, -1
			if v == " " && line.Len() == 0 {
				continue
			}
		}
		if noLineStart(v) && lastBreak == line.Len() {
			// No break just before closing punctuation ("完成）；" must
			// not leave "）；" to start the next line).
			lastBreak, prevBreak = prevBreak, -1
		}
		line.WriteString(v)
		lw += cw
		if (v == " " || v == "," || cw == 2 && !noLineEnd(v)) && !glued(at-1) {
			prevBreak, lastBreak = lastBreak, line.Len()
		}
	}
	if line.Len() > 0 {
		out = append(out, line.String())
	}
	return out
}

// noLineStart: closing punctuation that Chinese never puts at the start
// of a line.
func noLineStart(g string) bool {
	return strings.Contains("，。、；：？！）》」』】〕…", g) && g != ""
}

// noLineEnd: opening punctuation that Chinese never leaves at the end of
// a line: it goes down with what it opens.
func noLineEnd(g string) bool {
	return strings.Contains("（《「『【〔“‘", g) && g != ""
}
