package pane

import (
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
)

// Tr picks the UI text for lang; "both" shows English chrome.
func Tr(lang steps.Lang, en, zh string) string {
	if lang == steps.LangZH {
		return zh
	}
	return en
}

// Title is a pane title; in "both" it carries both languages, once each
// ("CM id", not "CM id CM id"; "保护域 PD", not "PD 保护域 PD").
func Title(lang steps.Lang, en, zh string) string {
	switch lang {
	case steps.LangZH:
		return zh
	case steps.LangBoth:
		if strings.Contains(zh, en) {
			return zh
		}
		return en + " " + zh
	}
	return en
}

// TextLang is the language for steps.Text values ("both" shows English
// with the Chinese where there is room; callers decide).
func TextLang(lang steps.Lang) string { return lang.Primary().String() }

// LangLabel names lang in the header.
func LangLabel(lang steps.Lang) string {
	switch lang {
	case steps.LangZH:
		return "中文"
	case steps.LangBoth:
		return "EN+中文"
	}
	return "EN"
}

// inLangs wraps t in the UI's language(s): both lines in "both".
func (in *Input) inLangs(t steps.Text, w int) []string {
	if t.EN == "" {
		return nil
	}
	if in.Lang == steps.LangBoth {
		out := termtext.Wrap(t.EN, w)
		if t.ZH != "" && t.ZH != t.EN {
			out = append(out, termtext.Wrap(t.ZH, w)...)
		}
		return out
	}
	return termtext.Wrap(t.In(TextLang(in.Lang)), w)
}

// LessonPageID is the docs page of a lesson.
func LessonPageID(name string) string { return docs.LessonPrefix + name }
