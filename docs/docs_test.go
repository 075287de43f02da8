package docs_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
)

func TestEveryStepHasPages(t *testing.T) {
	ids := steps.AllStepIDs()
	if len(ids) == 0 {
		t.Fatal("steps.AllStepIDs() is empty")
	}
	for _, id := range ids {
		for _, lang := range docs.Langs() {
			if _, err := docs.Page(lang, string(id)); err != nil {
				t.Errorf("step %q: %v (want docs/%s/%s.md)", id, err, lang, id)
			}
		}
	}
}

func TestEveryLessonHasPages(t *testing.T) {
	for _, l := range steps.Lessons() {
		for _, lang := range docs.Langs() {
			if _, err := docs.Page(lang, docs.LessonPrefix+l.Name); err != nil {
				t.Errorf("lesson %q: %v (want docs/%s/%s%s.md)", l.Name, err, lang, docs.LessonPrefix, l.Name)
			}
		}
	}
}

func TestLanguagesInStep(t *testing.T) {
	en, zh := docs.IDs("en"), docs.IDs("zh")
	if len(en) == 0 || len(zh) == 0 {
		t.Fatalf("no pages: en=%d zh=%d", len(en), len(zh))
	}
	has := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, id := range list {
			m[id] = true
		}
		return m
	}
	enSet, zhSet := has(en), has(zh)
	for _, id := range en {
		if !zhSet[id] {
			t.Errorf("docs/en/%s.md has no docs/zh twin", id)
		}
	}
	for _, id := range zh {
		if !enSet[id] {
			t.Errorf("docs/zh/%s.md has no docs/en twin", id)
		}
	}
}

func TestPageShape(t *testing.T) {
	for _, lang := range docs.Langs() {
		for _, id := range docs.IDs(lang) {
			want := docs.SectionsFor(lang, id)
			name := "docs/" + lang + "/" + id + ".md"
			page, err := docs.Page(lang, string(id))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if strings.TrimSpace(page) == "" {
				t.Errorf("%s is empty", name)
				continue
			}
			if !utf8.ValidString(page) {
				t.Errorf("%s is not valid UTF-8", name)
			}
			if docs.Title(page) == "" {
				t.Errorf("%s: first line must be a `# <title>` heading, got %q", name, strings.SplitN(page, "\n", 2)[0])
			}
			if got := docs.Sections(page); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: level-2 sections\n got  %q\n want %q", name, got, want)
			}
			checkSectionsNotEmpty(t, name, page)
			checkTables(t, name, page)
		}
	}
}

// checkSectionsNotEmpty fails when a section has no text under it.
func checkSectionsNotEmpty(t *testing.T, name, page string) {
	t.Helper()
	var cur string
	body := map[string]int{}
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "## ") {
			cur = line
			body[cur] = 0
			continue
		}
		if cur != "" && strings.TrimSpace(line) != "" {
			body[cur]++
		}
	}
	for h, n := range body {
		if n == 0 {
			t.Errorf("%s: section %q is empty", name, h)
		}
	}
}

// checkTables keeps Markdown tables narrow enough for an 80-column
// terminal.
func checkTables(t *testing.T, name, page string) {
	t.Helper()
	for i, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "|") && utf8.RuneCountInString(line) > 70 {
			t.Errorf("%s:%d: table row wider than 70 columns", name, i+1)
		}
	}
}

func TestTitlesMatchAcrossLanguages(t *testing.T) {
	// Same page, same place in the tour: both languages must at least have
	// a title; a very short zh page next to a long en page hints at a
	// missing part.
	for _, id := range docs.IDs("en") {
		en, err1 := docs.Page("en", string(id))
		zh, err2 := docs.Page("zh", string(id))
		if err1 != nil || err2 != nil {
			continue
		}
		if len([]rune(zh))*4 < len([]rune(en)) {
			t.Errorf("%s: zh page (%d runes) is much shorter than en (%d runes)", id, len([]rune(zh)), len([]rune(en)))
		}
	}
}

func TestSections(t *testing.T) {
	md := "# T\n\nintro\n## One\ntext\n### sub\n##Not\n  ## Two ##\n```\n## in code\n```\n    ## indented code\n## Three\r\n"
	got := docs.Sections(md)
	want := []string{"One", "Two", "Three"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sections = %q, want %q", got, want)
	}
	if got := docs.Sections("no headings"); len(got) != 0 {
		t.Fatalf("Sections(no headings) = %q", got)
	}
}

func TestTitle(t *testing.T) {
	cases := map[string]string{
		"# Hello\n## x": "Hello",
		"#Hello":        "",
		"\n# Hello":     "",
		"":              "",
		"# 创建 PD\r\n":   "创建 PD",
	}
	for in, want := range cases {
		if got := docs.Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPageErrors(t *testing.T) {
	if _, err := docs.Page("fr", "create-id"); err == nil {
		t.Error("Page(fr) did not fail")
	}
	if _, err := docs.Page("en", "no-such-step"); err == nil {
		t.Error("Page(en, no-such-step) did not fail")
	}
	if _, err := docs.Page("en", "../docs"); err == nil {
		t.Error("Page with a path did not fail")
	}
	if ids := docs.IDs("fr"); ids != nil {
		t.Errorf("IDs(fr) = %q", ids)
	}
}

func TestConceptsMatchFiles(t *testing.T) {
	listed := map[string]bool{}
	for _, id := range docs.Concepts() {
		if listed[id] {
			t.Errorf("docs.Concepts() lists %q twice", id)
		}
		listed[id] = true
		if docs.KindOf(id) != docs.KindConcept {
			t.Errorf("docs.Concepts() lists %q, which is not a concept ID (want prefix %q)", id, docs.ConceptPrefix)
		}
		for _, lang := range docs.Langs() {
			if _, err := docs.Page(lang, string(id)); err != nil {
				t.Errorf("concept %q: %v", id, err)
			}
		}
	}
	for _, lang := range docs.Langs() {
		for _, id := range docs.IDs(lang) {
			if docs.KindOf(id) == docs.KindConcept && !listed[id] {
				t.Errorf("docs/%s/%s.md is not in docs.Concepts(), so no one can find it", lang, id)
			}
		}
	}
}

func TestGlossaryExists(t *testing.T) {
	for _, lang := range docs.Langs() {
		page, err := docs.Page(lang, docs.GlossaryID)
		if err != nil {
			t.Fatalf("glossary: %v", err)
		}
		if got, want := docs.Sections(page), docs.SectionsFor(lang, docs.GlossaryID); !reflect.DeepEqual(got, want) {
			t.Errorf("%s glossary sections %q, want %q", lang, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	cases := map[string]docs.Kind{
		"create-id":         docs.KindStep,
		"lesson-no-recv":    docs.KindLesson,
		"concept-rkey":      docs.KindConcept,
		"glossary":          docs.KindGlossary,
		"glossary-extra":    docs.KindStep,
		"exercise-bad-rkey": docs.KindExercise,
		"post-write-early":  docs.KindStep,
	}
	for id, want := range cases {
		if got := docs.KindOf(id); got != want {
			t.Errorf("KindOf(%q) = %d, want %d", id, got, want)
		}
	}
}

// mdLink matches a Markdown inline link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve: a link to another page (`](other.md)`) must name a
// page of the same language, and every step and lesson page must link to
// the glossary.
func TestLinksResolve(t *testing.T) {
	for _, lang := range docs.Langs() {
		known := map[string]bool{}
		for _, id := range docs.IDs(lang) {
			known[id] = true
		}
		for _, id := range append(docs.IDs(lang), "README") {
			page, err := docs.Page(lang, string(id))
			if err != nil {
				t.Errorf("%s/%s: %v", lang, id, err)
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(page, -1) {
				target := m[1]
				if strings.Contains(target, "/") || strings.Contains(target, ":") || !strings.HasSuffix(target, ".md") {
					continue // another folder, a URL or an image: not a page of this set
				}
				if !known[strings.TrimSuffix(target, ".md")] {
					t.Errorf("docs/%s/%s.md links to %s, which is no page", lang, id, target)
				}
			}
			kind := docs.KindOf(id)
			if (kind == docs.KindStep || kind == docs.KindLesson) && id != "README" && !strings.Contains(page, "](glossary.md)") {
				t.Errorf("docs/%s/%s.md does not link to the glossary", lang, id)
			}
		}
	}
}
