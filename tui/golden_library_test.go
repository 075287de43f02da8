package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/text"
)

// Golden frames of the knowledge layer at 80×24 in en and zh: the page
// index (P), a search, a page opened from it, a link followed from that
// page, and the ? help that lists the keys. Update them with
//
//	go test ./tui -run TestGoldenLibrary -update
func TestGoldenLibrary(t *testing.T) {
	queries := map[text.Lang]string{text.EN: "rkey capab", text.ZH: "rkey 凭证"}
	frames := []struct {
		name string
		keys []string
	}{
		{"index", []string{"P"}},
		{"search", []string{"P", "type"}},
		{"page", []string{"P", "type", "enter"}},
		{"link", []string{"P", "type", "enter", "tab", "enter"}},
		{"help", []string{"?"}},
	}
	for _, lang := range []text.Lang{text.EN, text.ZH} {
		for _, f := range frames {
			name := fmt.Sprintf("%s-%s-80x24", f.name, lang)
			t.Run(name, func(t *testing.T) {
				m := goldenModel(t, true, lang, 80, 24)
				m.page.Docs = docs.Page // the real pages: their links and titles
				m.scr.lib = m.newLibrary()
				for _, k := range f.keys {
					if k == "type" {
						typeKeys(t, m, queries[lang])
						continue
					}
					press(t, m, k)
				}
				screen := m.render()
				checkFrame(t, name, screen, 80, 24)
				if strings.IndexByte(screen, 0x1b) >= 0 {
					t.Fatal("escape sequences with NO_COLOR")
				}
				golden.RequireEqual(t, screen+"\n")
			})
		}
	}
}
