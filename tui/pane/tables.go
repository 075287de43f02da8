package pane

import (
	"strings"

	"github.com/rdmatour/rdmatour/termtext"
)

// A table of the live state (memory regions, completions) sized to its
// content. Where even that is wider than the pane, each row becomes a
// line of name=value fields, which wrap like any other line: a value is
// never cut (an rkey 0x13e must not show as 0x13).

// table draws header and rows (cells may carry styles) in w cells,
// indented by two spaces.
func (in *Input) table(header []string, rows [][]string, w int) []string {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = termtext.Width(h)
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], termtext.Width(c))
		}
	}
	total := 2 + len(widths) - 1
	for _, n := range widths {
		total += n
	}
	if total > w {
		return in.tableCards(header, rows)
	}
	line := func(cells []string) string {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = c + strings.Repeat(" ", widths[i]-termtext.Width(c))
		}
		return strings.TrimRight("  "+strings.Join(parts, " "), " ")
	}
	out := []string{in.Styles.Dim.R(line(header))}
	for _, r := range rows {
		out = append(out, line(r))
	}
	return out
}

// tableCards is a table too wide for its pane: one line per row, the
// first cell as it is and the others as name=value.
func (in *Input) tableCards(header []string, rows [][]string) []string {
	var out []string
	for _, r := range rows {
		parts := []string{r[0]}
		for i, c := range r[1:] {
			parts = append(parts, in.Styles.Dim.R(header[i+1]+"=")+c)
		}
		out = append(out, "  "+strings.Join(parts, " "))
	}
	return out
}
