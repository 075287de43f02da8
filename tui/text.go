package tui

import "github.com/rdmatour/rdmatour/steps"

// Language handling for the UI's own text (labels, help, messages). The
// explanations come from docs; step titles and notes from steps.Text.

// Languages the l key cycles through.
const (
	LangEN   = "en"
	LangZH   = "zh"
	LangBoth = "both"
)

func nextLang(l string) string {
	switch l {
	case LangEN:
		return LangZH
	case LangZH:
		return LangBoth
	}
	return LangEN
}

func normLang(l string) string {
	switch l {
	case LangZH, LangBoth:
		return l
	}
	return LangEN
}

// tr picks the UI text for lang; "both" shows English chrome.
func tr(lang, en, zh string) string {
	if lang == LangZH {
		return zh
	}
	return en
}

// title is a pane title; in "both" it carries both languages.
func title(lang, en, zh string) string {
	switch lang {
	case LangZH:
		return zh
	case LangBoth:
		return en + " " + zh
	}
	return en
}

// textLang is the language for steps.Text values ("both" shows English
// with the Chinese where there is room; callers decide).
func textLang(lang string) string {
	if lang == LangZH {
		return LangZH
	}
	return LangEN
}

func langLabel(lang string) string {
	switch lang {
	case LangZH:
		return "中文"
	case LangBoth:
		return "EN+中文"
	}
	return "EN"
}

// peerText is text that may hold bytes a peer wrote (the buffer, a SEND's
// payload, a timeline detail that quotes it), made safe for the terminal:
// a peer must not clear, recolour or retitle the learner's screen.
func peerText(s string) string { return steps.EscapePeer([]byte(s)) }
