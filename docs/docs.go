// Package docs holds the teaching pages of rdmatour, in English (en/) and
// Chinese (zh/), embedded into the binary. There are five kinds of page,
// told apart by their ID:
//
//	<step-id>        one per step of a tour
//	lesson-<name>    one per lesson (a tour with one deliberate mistake)
//	concept-<name>   one per idea that several steps lean on
//	exercise-<name>  one per exercise (rdmatour exercise): the task, its hints
//	glossary         the terms, and the one Chinese word chosen for each
//
// Every page starts with a "# <title>" line and has the level-2 sections of
// its kind, in order (SectionsFor). A step page has:
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
// (lesson-<name>.md): the mistake, the question the learner answers before
// running it, the error, how to spot it, the fix. Everything from the
// third section on gives the answer away: screens show it only after the
// learner predicted (BeforePrediction).
var lessonSections = map[string][]string{
	"en": {"The mistake", PredictSection["en"], "What you will see", "How to recognise it in real code", "The fix"},
	"zh": {"错在哪里", PredictSection["zh"], "你会看到什么", "在真实代码里怎么认出它", "怎么改"},
}

// PredictSection is the lesson page's question section, per language.
var PredictSection = map[string]string{"en": "Predict", "zh": "先猜一猜"}

// trackSections are the sections of lesson-manual-qp, a track rather
// than a lesson with a mistake: it asks no prediction.
var trackSections = map[string][]string{
	"en": {"The mistake", "What you will see", "How to recognise it in real code", "The fix"},
	"zh": {"错在哪里", "你会看到什么", "在真实代码里怎么认出它", "怎么改"},
}

// ManualTrackPage is the page of the manual QP track.
const ManualTrackPage = "lesson-manual-qp"

// conceptSections are the level-2 headings of a concept page
// (concept-<name>.md).
var conceptSections = map[string][]string{
	"en": {"The idea", "Where the tour shows it", "The details", "Common mistakes"},
	"zh": {"要点", "教程里哪里能看到", "细节", "常见错误"},
}

// exerciseSections are the level-2 headings of an exercise page
// (exercise-<name>.md): the task, where to look, what check judges, and
// the three hints (a numbered list) that `rdmatour exercise hint` gives
// one at a time.
var exerciseSections = map[string][]string{
	"en": {"The task", "Where to look", "How check judges it", "Hints"},
	"zh": {"任务", "从哪里看起", "check 怎么判断", "提示"},
}

// glossarySections are the level-2 headings of the glossary page.
var glossarySections = map[string][]string{
	"en": {"How to read this page", "Objects", "Work and completions", "Connections and addressing", "Packets on the wire", "On the screen"},
	"zh": {"怎么读这一页", "对象", "工作请求与完成", "连接与寻址", "线上报文", "屏幕上的词"},
}

const (
	// LessonPrefix starts the page ID of every lesson page.
	LessonPrefix = "lesson-"
	// ConceptPrefix starts the page ID of every concept page.
	ConceptPrefix = "concept-"
	// ExercisePrefix starts the page ID of every exercise page.
	ExercisePrefix = "exercise-"
	// GlossaryID is the page ID of the glossary.
	GlossaryID = "glossary"
)

// Kind says what a page is for; its ID decides it.
type Kind int

const (
	KindStep     Kind = iota // explains one step (one call)
	KindLesson               // explains one lesson's mistake
	KindConcept              // explains an idea several steps lean on
	KindGlossary             // the glossary
	KindExercise             // one exercise: the task and its hints
)

// KindOf returns the kind of page id names.
func KindOf(id string) Kind {
	switch {
	case id == GlossaryID:
		return KindGlossary
	case strings.HasPrefix(id, ConceptPrefix):
		return KindConcept
	case strings.HasPrefix(id, LessonPrefix):
		return KindLesson
	case strings.HasPrefix(id, ExercisePrefix):
		return KindExercise
	default:
		return KindStep
	}
}

// Concepts returns the IDs of the concept pages in reading order: each
// builds on the ones before it. Page(lang, id) loads them.
func Concepts() []string {
	return []string{
		"concept-rkey",
		"concept-pd",
		"concept-signaled",
		"concept-inline",
		"concept-mtu",
		"concept-addressing",
		"concept-ordering",
		"concept-completion-channel",
		"concept-async-events",
		"concept-retry",
		"concept-qp-recovery",
		"concept-srq",
		"concept-waiting",
		"concept-transports",
		"concept-iwarp",
		"concept-wire",
		"concept-ud",
		"concept-workshop",
		"concept-nic-profiles",
	}
}

// SectionsFor returns the sections page id must have in lang.
func SectionsFor(lang, id string) []string {
	var sections map[string][]string
	switch KindOf(id) {
	case KindGlossary:
		sections = glossarySections
	case KindConcept:
		sections = conceptSections
	case KindExercise:
		sections = exerciseSections
	case KindLesson:
		sections = lessonSections
		if id == ManualTrackPage {
			sections = trackSections
		}
	default:
		sections = requiredSections
	}
	return append([]string(nil), sections[lang]...)
}

func validLang(lang string) bool {
	_, ok := requiredSections[lang]
	return ok
}

// Page returns the Markdown page for a step, lesson, concept or glossary
// id in lang ("en" or "zh"). It fails for an unknown language or a missing
// page.
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
