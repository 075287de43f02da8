package exercise

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/text"
)

// HintCount is how many hints every exercise has: where to look, what the
// field means, the shape of the fix.
const HintCount = 3

// hintItem is one item of the page's numbered hint list.
var hintItem = regexp.MustCompile(`(?m)^\d\. `)

// PageError is an exercise page that lacks what the command reads from
// it (a test keeps every page whole; this is for a broken build).
type PageError struct{ Page, Lang, What string }

func (e *PageError) Error() string {
	return fmt.Sprintf("docs/%s/%s.md: %s", e.Lang, e.Page, e.What)
}

// section is the body of the page's section number i (0-based, in the
// order docs.SectionsFor gives), in lang ("en" or "zh").
func (e Exercise) section(lang string, i int) (string, error) {
	page, err := docs.Page(lang, e.Page())
	if err != nil {
		return "", err
	}
	want := docs.SectionsFor(lang, e.Page())
	_, sections := docs.Split(page)
	for _, s := range sections {
		if i < len(want) && s.Heading == want[i] {
			return strings.TrimSpace(s.Body), nil
		}
	}
	return "", &PageError{Page: e.Page(), Lang: lang, What: "no section " + fmt.Sprint(want)}
}

// TaskText is the page's task section, in lang.
func (e Exercise) TaskText(lang string) (string, error) { return e.section(lang, 0) }

// Hints are the page's three hints, in lang, first to last.
func (e Exercise) Hints(lang string) ([]string, error) {
	body, err := e.section(lang, 3)
	if err != nil {
		return nil, err
	}
	starts := hintItem.FindAllStringIndex(body, -1)
	if len(starts) != HintCount {
		return nil, &PageError{Page: e.Page(), Lang: lang, What: fmt.Sprintf("the Hints section has %d numbered items, not %d", len(starts), HintCount)}
	}
	var hints []string
	for i, s := range starts {
		end := len(body)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		hints = append(hints, strings.TrimSpace(body[s[1]:end]))
	}
	return hints, nil
}

// PageLangs are the page languages for lang: one, or both for text.Both.
func PageLangs(lang text.Lang) []string {
	switch lang {
	case text.ZH:
		return []string{"zh"}
	case text.Both:
		return []string{"en", "zh"}
	}
	return []string{"en"}
}
