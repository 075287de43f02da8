package docs

import (
	"regexp"
	"strings"
)

// Group is where a page sits in the page index: the front ends list the
// groups in this order.
type Group int

const (
	GroupGuide   Group = iota // the glossary and the pages about rdmatour's own features
	GroupConcept              // concept pages, in reading order
	GroupLesson               // lesson pages
	GroupStep                 // step pages
	GroupOther                // a page of a kind the index has no group for yet
)

// Guides lists the pages that explain a feature of rdmatour rather than a
// step: the glossary first, then export-c and record-replay. They are
// written with a step page's sections, so KindOf cannot tell them apart.
func Guides() []string { return []string{GlossaryID, "export-c", "record-replay"} }

// Entry is one page of the index: its ID, its group and its title in the
// index's language.
type Entry struct {
	ID    string
	Group Group
	Title string
}

// Index lists every page of lang, grouped (guides, concepts in reading
// order, lessons, steps, then pages of any other kind; each of the last
// three sorted by ID), with its title. It is empty for an unknown
// language.
func Index(lang string) []Entry {
	ids := IDs(lang)
	if ids == nil {
		return nil
	}
	have := make(map[string]bool, len(ids))
	for _, id := range ids {
		have[id] = true
	}
	var out []Entry
	add := func(id string, g Group) {
		if !have[id] {
			return
		}
		delete(have, id) // each page once, in its first group
		md, _ := Page(lang, id)
		title := Title(md)
		if title == "" {
			title = id
		}
		out = append(out, Entry{ID: id, Group: g, Title: title})
	}
	for _, id := range Guides() {
		add(id, GroupGuide)
	}
	for _, id := range Concepts() {
		add(id, GroupConcept)
	}
	for _, id := range ids {
		if KindOf(id) == KindConcept {
			add(id, GroupConcept) // a concept page not yet in Concepts()
		}
	}
	for _, id := range ids {
		if KindOf(id) == KindLesson {
			add(id, GroupLesson)
		}
	}
	for _, id := range ids {
		if KindOf(id) == KindStep {
			add(id, GroupStep)
		}
	}
	for _, id := range ids {
		add(id, GroupOther)
	}
	return out
}

// Link is a link from one page to another: the words shown and the ID of
// the page it names.
type Link struct {
	Label string
	ID    string
}

// pageLink matches a Markdown link to another page: [label](id.md), with
// an optional #anchor after it.
var pageLink = regexp.MustCompile(`\[([^\]]+)\]\(([A-Za-z0-9-]+)\.md(?:#[^)]*)?\)`)

// Links returns the links of a page to other pages, in order, each target
// once; code (fenced or inline) is not searched. A link to a page that is
// not there is still listed: the caller's Page call says so.
func Links(markdown string) []Link {
	var out []Link
	seen := map[string]bool{}
	fence := ""
	for _, line := range strings.Split(markdown, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		for _, m := range pageLink.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			if seen[m[2]] {
				continue
			}
			seen[m[2]] = true
			out = append(out, Link{Label: m[1], ID: m[2]})
		}
	}
	return out
}

// withoutCodeSpans blanks `code` spans, so that a link written as an
// example inside one is not followed.
func withoutCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		if i == len(parts)-1 {
			break // an unmatched backtick: the rest is text
		}
		parts[i] = ""
	}
	return strings.Join(parts, "`")
}

// Term is one entry of the glossary: the term as written in bold at the
// start of its line, and the whole entry as one line of plain text.
type Term struct {
	Term  string
	Entry string
}

// glossaryItem matches the first line of a glossary entry: "- **term** …".
var glossaryItem = regexp.MustCompile(`^- \*\*([^*]+)\*\*`)

// GlossaryTerms returns the glossary's entries in lang, in page order,
// each with its continuation lines joined. It is empty for an unknown
// language.
func GlossaryTerms(lang string) []Term {
	md, err := Page(lang, GlossaryID)
	if err != nil {
		return nil
	}
	var out []Term
	open := false // the last line belongs to an entry
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case glossaryItem.MatchString(line):
			m := glossaryItem.FindStringSubmatch(line)
			out = append(out, Term{Term: m[1], Entry: plainText(strings.TrimPrefix(line, "- "))})
			open = true
		case open && trimmed != "" && strings.HasPrefix(line, "  "):
			last := &out[len(out)-1]
			sep := " "
			if lang == "zh" {
				sep = "" // Chinese joins a soft line break without a space
			}
			last.Entry += sep + plainText(trimmed)
		default:
			open = false // a blank line, a heading or other text ends an entry
		}
	}
	return out
}

// plainText drops the Markdown emphasis and code marks of a line.
func plainText(s string) string {
	return strings.NewReplacer("**", "", "`", "").Replace(s)
}
