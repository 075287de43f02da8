package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
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

// termSafe makes text from the steps package safe for the terminal. The
// steps escape the peer's bytes where they enter (privdata.PeerBytes): the
// call's results and the timeline arrive escaped, and escaping them again
// would double every backslash. This is the net under that: any control,
// format or invalid byte still left is escaped as privdata.EscapePeer does,
// and everything else, backslashes included, is left as it is.
func termSafe(s string) string {
	safe := true
	for _, r := range s {
		if !printable(r) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if printable(r) {
			b.WriteRune(r)
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		b.WriteString(privdata.EscapePeer([]byte(s[i : i+n])))
	}
	return b.String()
}

// printable: shown as it is (invalid UTF-8 decodes as RuneError).
func printable(r rune) bool {
	return r == ' ' || (r != utf8.RuneError && unicode.IsPrint(r))
}
