package pane

import (
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/text"
)

// libGroup is a heading of the page index, in the order shown.
type libGroup int

const (
	groupOnScreen  libGroup = iota // the page the explanation pane shows
	groupTourSteps                 // the steps of the tour(s) on screen, in order
	groupLesson
	groupConcept
	groupGuide
	groupTerm       // one entry of the glossary each
	groupOtherSteps // the steps of the other tours
	groupOther      // pages of a kind the index has no heading for
)

// libGroups are the index's headings.
var libGroups = [...]text.Text{
	groupOnScreen:   {EN: "On screen now", ZH: "当前页面"},
	groupTourSteps:  {EN: "Steps of this tour", ZH: "本教程的步骤"},
	groupLesson:     {EN: "Lessons (r on a lesson's page runs it)", ZH: "课程（在课程页面按 r 运行它）"},
	groupConcept:    {EN: "Concepts", ZH: "概念"},
	groupGuide:      {EN: "Guides", ZH: "指南"},
	groupTerm:       {EN: "Glossary entries", ZH: "术语表条目"},
	groupOtherSteps: {EN: "Steps of the other tours", ZH: "其他教程的步骤"},
	groupOther:      {EN: "Other pages", ZH: "其他页面"},
}

// fromDocs is the index group of a docs group.
var fromDocs = map[docs.Group]libGroup{
	docs.GroupGuide: groupGuide, docs.GroupConcept: groupConcept,
	docs.GroupLesson: groupLesson, docs.GroupStep: groupOtherSteps, docs.GroupOther: groupOther,
}

// indexEntries is the index: every page of docs.Index with its title in
// both languages, then every glossary entry, sorted by group. Step pages
// of tourSteps come first, in tour order.
func indexEntries(tourSteps []string) []libEntry {
	zh := map[string]string{}
	for _, e := range docs.Index("zh") {
		zh[e.ID] = e.Title
	}
	order := map[string]int{}
	for i, id := range tourSteps {
		if _, dup := order[id]; !dup {
			order[id] = i
		}
	}
	byGroup := make([][]libEntry, len(libGroups))
	tour := make([]libEntry, len(tourSteps))
	for _, e := range docs.Index("en") {
		le := newEntry(e.ID, fromDocs[e.Group], text.Text{EN: e.Title, ZH: zh[e.ID]}, text.Text{})
		if i, ok := order[e.ID]; ok && e.Group == docs.GroupStep {
			le.group = groupTourSteps
			tour[i] = le
			continue
		}
		byGroup[le.group] = append(byGroup[le.group], le)
	}
	for _, e := range tour {
		if e.id != "" {
			byGroup[groupTourSteps] = append(byGroup[groupTourSteps], e)
		}
	}
	byGroup[groupTerm] = glossaryEntries()
	var out []libEntry
	for _, g := range byGroup {
		out = append(out, g...)
	}
	return out
}

// glossaryEntries is one index entry per glossary entry. The two pages
// list the same terms in the same order; a language with fewer entries
// leaves the rest English only.
func glossaryEntries() []libEntry {
	en, zh := docs.GlossaryTerms("en"), docs.GlossaryTerms("zh")
	out := make([]libEntry, 0, len(en))
	for i, t := range en {
		title, term := text.Text{EN: t.Entry}, text.Text{EN: t.Term}
		if i < len(zh) {
			title.ZH, term.ZH = zh[i].Entry, zh[i].Term
		}
		out = append(out, newEntry(docs.GlossaryID, groupTerm, title, term))
	}
	return out
}

func newEntry(id string, g libGroup, title, term text.Text) libEntry {
	return libEntry{id: id, group: g, title: title, term: term,
		search: strings.ToLower(title.EN + "\n" + title.ZH + "\n" + id)}
}

// withOnScreen puts the page on screen first, under its own heading.
func withOnScreen(entries []libEntry, onScreen string) []libEntry {
	if len(entries) > 0 && entries[0].group == groupOnScreen {
		entries = entries[1:]
	}
	if onScreen == "" {
		return entries
	}
	for _, e := range entries {
		if e.id == onScreen && e.term == (text.Text{}) {
			e.group = groupOnScreen
			return append([]libEntry{e}, entries...)
		}
	}
	return entries
}
