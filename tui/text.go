package tui

import (
	"strings"

	"github.com/rdmatour/rdmatour/steps"
)

// Language handling for the UI's own text (labels, help, messages). The
// explanations come from docs; step titles and notes from steps.Text.

// nextLang is the language the l key switches to: en → zh → both → en.
func nextLang(l steps.Lang) steps.Lang {
	switch l {
	case steps.LangEN:
		return steps.LangZH
	case steps.LangZH:
		return steps.LangBoth
	}
	return steps.LangEN
}

// normLang maps anything but zh and both to en.
func normLang(l steps.Lang) steps.Lang {
	switch l {
	case steps.LangZH, steps.LangBoth:
		return l
	}
	return steps.LangEN
}

// tr picks the UI text for lang; "both" shows English chrome.
func tr(lang steps.Lang, en, zh string) string {
	if lang == steps.LangZH {
		return zh
	}
	return en
}

// title is a pane title; in "both" it carries both languages, once each
// ("CM id", not "CM id CM id"; "保护域 PD", not "PD 保护域 PD").
func title(lang steps.Lang, en, zh string) string {
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

// textLang is the language for steps.Text values ("both" shows English
// with the Chinese where there is room; callers decide).
func textLang(lang steps.Lang) string { return lang.Primary().String() }

func langLabel(lang steps.Lang) string {
	switch lang {
	case steps.LangZH:
		return "中文"
	case steps.LangBoth:
		return "EN+中文"
	}
	return "EN"
}
