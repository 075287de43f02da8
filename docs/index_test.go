package docs_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/docs"
)

// The index holds every page exactly once, in its group, titled.
func TestIndexListsEveryPageOnce(t *testing.T) {
	for _, lang := range docs.Langs() {
		ids := docs.IDs(lang)
		entries := docs.Index(lang)
		if len(entries) != len(ids) {
			t.Errorf("%s: index has %d entries, the language has %d pages", lang, len(entries), len(ids))
		}
		seen := map[string]bool{}
		last := docs.GroupGuide
		for _, e := range entries {
			if seen[e.ID] {
				t.Errorf("%s: %s listed twice", lang, e.ID)
			}
			seen[e.ID] = true
			if e.Group < last {
				t.Errorf("%s: %s (group %d) after group %d: groups out of order", lang, e.ID, e.Group, last)
			}
			last = e.Group
			if e.Title == "" || e.Title == e.ID {
				t.Errorf("%s: %s has no title", lang, e.ID)
			}
			want := map[docs.Kind]docs.Group{docs.KindConcept: docs.GroupConcept, docs.KindLesson: docs.GroupLesson, docs.KindGlossary: docs.GroupGuide}
			if g, ok := want[docs.KindOf(e.ID)]; ok && g != e.Group {
				t.Errorf("%s: %s in group %d, want %d", lang, e.ID, e.Group, g)
			}
		}
		if entries[0].ID != docs.GlossaryID {
			t.Errorf("%s: index starts with %s, want the glossary", lang, entries[0].ID)
		}
	}
	if docs.Index("fr") != nil {
		t.Error("Index(fr) is not empty")
	}
}

func TestLinks(t *testing.T) {
	md := "# T\n\nSee also: [The rkey](concept-rkey.md) · [glossary](glossary.md#rkey), [again](concept-rkey.md).\n" +
		"`[not a link](accept.md)` and [a site](https://example.com)\n```\n[in code](listen.md)\n```\n[last](listen.md)\n"
	got := docs.Links(md)
	want := []docs.Link{{"The rkey", "concept-rkey"}, {"glossary", "glossary"}, {"last", "listen"}}
	if len(got) != len(want) {
		t.Fatalf("Links = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("link %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// Every link of every page names a page of the same language.
func TestEveryLinkResolves(t *testing.T) {
	for _, lang := range docs.Langs() {
		for _, id := range docs.IDs(lang) {
			md, _ := docs.Page(lang, id)
			for _, l := range docs.Links(md) {
				if _, err := docs.Page(lang, l.ID); err != nil {
					t.Errorf("%s/%s links to %q: %v", lang, id, l.ID, err)
				}
			}
		}
	}
}

func TestGlossaryTerms(t *testing.T) {
	for _, lang := range docs.Langs() {
		terms := docs.GlossaryTerms(lang)
		if len(terms) < 50 {
			t.Fatalf("%s: %d glossary terms, want the page's entries (over 50)", lang, len(terms))
		}
		for _, tm := range terms {
			if tm.Term == "" || !strings.HasPrefix(tm.Entry, tm.Term) || strings.Contains(tm.Entry, "**") || strings.Contains(tm.Entry, "\n") {
				t.Errorf("%s: bad term %+v", lang, tm)
			}
		}
	}
	en := docs.GlossaryTerms("en")
	if en[0].Term != "device context" || !strings.HasSuffix(en[0].Entry, "PDs and CQs hang off it.") {
		t.Errorf("first en term = %+v, want device context with its continuation line", en[0])
	}
}

// The two glossaries list the same terms in the same order: the page
// index pairs them by position for the both-languages screen.
func TestGlossaryTermsPairAcrossLanguages(t *testing.T) {
	en, zh := docs.GlossaryTerms("en"), docs.GlossaryTerms("zh")
	if len(en) != len(zh) {
		t.Fatalf("%d English glossary entries, %d Chinese", len(en), len(zh))
	}
	for i := range en {
		name, _, _ := strings.Cut(en[i].Term, " (")
		if !strings.Contains(strings.ToLower(zh[i].Entry), strings.ToLower(name)) {
			t.Errorf("entry %d: English %q, Chinese %q does not name it", i, en[i].Term, zh[i].Entry)
		}
	}
}
