// Package docs holds the teaching pages of rdmatour: one Markdown page per
// step (and later per lesson), in English (en/) and Chinese (zh/), embedded
// into the binary.
//
// Every page starts with a "# <title>" line and has exactly four level-2
// sections, in this order:
//
//	en: What the call does / Why it is needed here / What to watch / Common mistakes
//	zh: 这个调用做什么 / 为什么这里需要它 / 屏幕上看什么 / 常见错误
package docs

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed en/*.md zh/*.md
var pages embed.FS

// Langs returns the languages pages are written in.
func Langs() []string { return []string{"en", "zh"} }

// requiredSections are the level-2 headings every page of a language has,
// in order.
var requiredSections = map[string][]string{
	"en": {"What the call does", "Why it is needed here", "What to watch", "Common mistakes"},
	"zh": {"这个调用做什么", "为什么这里需要它", "屏幕上看什么", "常见错误"},
}

// lessonSections are the level-2 headings of a lesson page
// (lesson-<name>.md): the mistake, the error, how to spot it, the fix.
var lessonSections = map[string][]string{
	"en": {"The mistake", "What you will see", "How to recognise it in real code", "The fix"},
	"zh": {"错在哪里", "你会看到什么", "在真实代码里怎么认出它", "怎么改"},
}

// LessonPrefix starts the page ID of every lesson page.
const LessonPrefix = "lesson-"

// SectionsFor returns the sections page id must have in lang.
func SectionsFor(lang, id string) []string {
	if strings.HasPrefix(id, LessonPrefix) {
		return append([]string(nil), lessonSections[lang]...)
	}
	return append([]string(nil), requiredSections[lang]...)
}

func validLang(lang string) bool {
	_, ok := requiredSections[lang]
	return ok
}

// Page returns the Markdown page for a step or lesson id in lang ("en" or
// "zh"). It fails for an unknown language or a missing page.
func Page(lang, id string) (string, error) {
	if !validLang(lang) {
		return "", fmt.Errorf("docs: unknown language %q (want en or zh)", lang)
	}
	if id == "" || strings.ContainsAny(id, "/\\") || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("docs: invalid page id %q", id)
	}
	b, err := pages.ReadFile(path.Join(lang, id+".md"))
	if err != nil {
		return "", fmt.Errorf("docs: no %s page for %q", lang, id)
	}
	return string(b), nil
}

// IDs lists the page ids available in lang, sorted. It is empty for an
// unknown language.
func IDs(lang string) []string {
	if !validLang(lang) {
		return nil
	}
	entries, err := fs.ReadDir(pages, lang)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range entries {
		name := e.Name()
		// README.md is the folder's introduction, not a step or lesson page.
		if e.IsDir() || !strings.HasSuffix(name, ".md") || name == "README.md" {
			continue
		}
		ids = append(ids, strings.TrimSuffix(name, ".md"))
	}
	sort.Strings(ids)
	return ids
}

// Title returns the text of the page's first-line "# " heading, or "" when
// the page does not start with one.
func Title(markdown string) string {
	first, _, _ := strings.Cut(strings.TrimLeft(markdown, "\ufeff"), "\n")
	first = strings.TrimRight(first, "\r")
	if !strings.HasPrefix(first, "# ") {
		return ""
	}
	return strings.TrimSpace(first[2:])
}

// Sections returns the level-2 headings ("## ...") of a Markdown page, in
// order, with the marker and surrounding space removed. Lines inside fenced
// code blocks are ignored.
func Sections(markdown string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(markdown, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			fence = "```"
			continue
		}
		if strings.HasPrefix(trimmed, "~~~") {
			fence = "~~~"
			continue
		}
		if len(line)-len(trimmed) > 3 {
			continue // indented code, not a heading
		}
		if !strings.HasPrefix(trimmed, "## ") {
			continue
		}
		h := strings.TrimSpace(trimmed[3:])
		h = strings.TrimSpace(strings.TrimRight(h, "#"))
		out = append(out, h)
	}
	return out
}
