package tui

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
)

// glamCache renders explanation pages with glamour and keeps the result:
// rendering Markdown takes milliseconds, View must not.
type glamCache struct {
	noColor, dark bool
	renderers     map[int]*glamour.TermRenderer
	pages         map[glamKey][]string
}

type glamKey struct {
	lang, id string
	width    int
}

func newGlamCache(noColor bool) *glamCache {
	return &glamCache{noColor: noColor, dark: true, renderers: map[int]*glamour.TermRenderer{}, pages: map[glamKey][]string{}}
}

func (g *glamCache) setDark(d bool) {
	g.dark = d
	g.renderers = map[int]*glamour.TermRenderer{}
	g.pages = map[glamKey][]string{}
}

func (g *glamCache) style() gansi.StyleConfig {
	var c gansi.StyleConfig
	switch {
	case g.noColor:
		c = styles.ASCIIStyleConfig
	case g.dark:
		c = styles.DarkStyleConfig
	default:
		c = styles.LightStyleConfig
	}
	// The pane has its own frame: no document margin, no blank first line.
	zero := uint(0)
	c.Document.Margin = &zero
	c.Document.BlockPrefix = ""
	c.Document.BlockSuffix = ""
	return c
}

// render returns the page rendered to width cells, one string per line,
// or nil if glamour fails (the caller shows the raw text).
func (g *glamCache) render(lang, id, md string, width int) []string {
	k := glamKey{lang, id, width}
	if l, ok := g.pages[k]; ok {
		return l
	}
	r, ok := g.renderers[width]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(g.style()), glamour.WithWordWrap(width))
		if err != nil {
			return nil
		}
		g.renderers[width] = r
	}
	out, err := r.Render(md)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(out, "\n "), "\n")
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	g.pages[k] = lines
	return lines
}

// stripANSI removes escape sequences (CSI and OSC).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}
