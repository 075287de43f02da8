package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/docs"
)

// readmeLink matches a Markdown link's target.
var readmeLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestREADMEsAreTwins holds docs/en/README.md and docs/zh/README.md (the
// index of each language's pages) to the same shape: as many sections
// and list items, the same links once the language in a path is taken
// out, every concept page linked in reading order, and every link to a
// file outside docs/<lang>/ pointing at one that exists.
func TestREADMEsAreTwins(t *testing.T) {
	readme := map[string]string{}
	for _, lang := range docs.Langs() {
		page, err := docs.Page(lang, "README")
		if err != nil {
			t.Fatal(err)
		}
		readme[lang] = page
		checkREADMELinksExist(t, lang, page)
		checkConceptsListed(t, lang, page)
	}
	en, zh := readme["en"], readme["zh"]
	if a, b := len(docs.Sections(en)), len(docs.Sections(zh)); a != b {
		t.Errorf("README: en has %d sections, zh %d", a, b)
	}
	if a, b := len(listItemsOf(en)), len(listItemsOf(zh)); a != b {
		t.Errorf("README: en has %d list items, zh %d", a, b)
	}
	if a, b := readmeLinks(en), readmeLinks(zh); !slices.Equal(a, b) {
		t.Errorf("README: the languages link to different pages\n en %q\n zh %q", a, b)
	}
}

func listItemsOf(page string) []string {
	return regexp.MustCompile(`(?m)^\s*([-*+]|\d+\.)\s`).FindAllString(page, -1)
}

// readmeLinks returns a page's link targets in order, with "en" and "zh"
// in a path replaced by "LANG".
func readmeLinks(page string) []string {
	var out []string
	lang := regexp.MustCompile(`(^|/)(en|zh)/`)
	for _, m := range readmeLink.FindAllStringSubmatch(page, -1) {
		out = append(out, lang.ReplaceAllString(m[1], "${1}LANG/"))
	}
	return out
}

// checkREADMELinksExist: a link that leaves docs/<lang>/ names a file of
// the repository (TestLinksResolve checks the ones inside).
func checkREADMELinksExist(t *testing.T, lang, page string) {
	t.Helper()
	for _, m := range readmeLink.FindAllStringSubmatch(page, -1) {
		if !strings.Contains(m[1], "/") || strings.Contains(m[1], ":") {
			continue
		}
		if _, err := os.Stat(filepath.Join(lang, m[1])); err != nil {
			t.Errorf("docs/%s/README.md links to %s: %v", lang, m[1], err)
		}
	}
}

// checkConceptsListed: the index links every concept page, in the
// reading order of docs.Concepts.
func checkConceptsListed(t *testing.T, lang, page string) {
	t.Helper()
	var listed []string
	for _, m := range readmeLink.FindAllStringSubmatch(page, -1) {
		if id, ok := strings.CutSuffix(m[1], ".md"); ok && docs.KindOf(id) == docs.KindConcept {
			listed = append(listed, id)
		}
	}
	if want := docs.Concepts(); !slices.Equal(listed, want) {
		t.Errorf("docs/%s/README.md lists the concept pages\n %q\nwant (docs.Concepts, in order)\n %q", lang, listed, want)
	}
}

// TestProjectREADMEsAreTwins holds README.md and README.zh.md to the same
// shape: as many sections and fenced code blocks, the same links to the
// pages, and the same evidence and source markers in the same order (a
// claim made in one is made, and backed, in the other).
func TestProjectREADMEsAreTwins(t *testing.T) {
	en, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	zh, err := os.ReadFile("../README.zh.md")
	if err != nil {
		t.Fatal(err)
	}
	if a, b := len(docs.Sections(string(en))), len(docs.Sections(string(zh))); a != b {
		t.Errorf("README.md has %d sections, README.zh.md %d", a, b)
	}
	fences := func(b []byte) int { return strings.Count(string(b), "\n```") }
	if a, b := fences(en), fences(zh); a != b {
		t.Errorf("README.md has %d code fences, README.zh.md %d", a, b)
	}
	var me, mz []string
	for _, m := range markers(string(en)) {
		me = append(me, m[0])
	}
	for _, m := range markers(string(zh)) {
		mz = append(mz, m[0])
	}
	if !slices.Equal(me, mz) {
		t.Errorf("README.md and README.zh.md carry different markers\n en %q\n zh %q", me, mz)
	}
	if a, b := pageLinks(string(en)), pageLinks(string(zh)); !slices.Equal(a, b) {
		t.Errorf("README.md and README.zh.md link to different pages\n en %q\n zh %q", a, b)
	}
}

// pageLinks are a project README's links into docs/, language taken
// out, without the links between the two READMEs and the screenshots
// (each shows its own first).
func pageLinks(readme string) []string {
	var out []string
	for _, l := range readmeLinks(readme) {
		if strings.Contains(l, "README") || strings.Contains(l, "screenshot-") {
			continue
		}
		out = append(out, l)
	}
	return out
}
