package docs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/docs"
)

// TestNoSpaceBetweenChineseWords: Chinese prose has no spaces between
// two Han characters ("十六进制视图 全是" reads as a typo); code spans and
// code blocks are not prose.
func TestNoSpaceBetweenChineseWords(t *testing.T) {
	stray := regexp.MustCompile(`\p{Han} +\p{Han}`)
	code := regexp.MustCompile("`[^`]*`")
	for _, id := range docs.IDs("zh") {
		page, err := docs.Page("zh", id)
		if err != nil {
			t.Fatal(err)
		}
		inBlock := false
		for i, line := range strings.Split(page, "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			if inBlock {
				continue
			}
			if m := stray.FindString(code.ReplaceAllString(line, "x")); m != "" {
				t.Errorf("docs/zh/%s.md line %d: a space between Chinese words, %q", id, i+1, m)
			}
		}
	}
}
