// Package text is the one bilingual text of rdmatour: a Text holds a piece
// of user-facing text in English and Chinese, and a Lang says which of
// them (or both) a learner reads. Every layer — steps, the front ends, the
// command line, doctor — speaks Text, so no code translates by matching
// English strings.
//
// It is a leaf: it imports nothing of rdmatour's.
package text

import (
	"fmt"
	"strings"
)

// Text is a piece of user-facing text in both languages. ZH is "" where
// the text is the same in both (a number, a C name): In falls back to EN.
type Text struct{ EN, ZH string }

// Same is a text that reads the same in both languages: a number, an
// address, a C identifier, or what the system said.
func Same(s string) Text { return Text{EN: s} }

// In returns the text in lang: Chinese for ZH when there is any, English
// otherwise (Both gives English: callers that show both ask for each in
// turn with Lang.Each).
func (t Text) In(lang Lang) string {
	if lang == ZH && t.ZH != "" {
		return t.ZH
	}
	return t.EN
}

// Label is t as a short label (a pane title, a heading) in lang; in
// Both it carries both languages, once each ("CM id", not "CM id CM id";
// "保护域 PD", not "PD 保护域 PD").
func (t Text) Label(lang Lang) string {
	switch {
	case lang != Both || t.ZH == "":
		return t.In(lang)
	case strings.Contains(t.ZH, t.EN):
		return t.ZH
	}
	return t.EN + " " + t.ZH
}

// Joined is t in lang on one line; in Both, "English / 中文" (once where
// the two are the same).
func (t Text) Joined(lang Lang) string {
	if lang == Both && t.ZH != "" && t.ZH != t.EN {
		return t.EN + " / " + t.ZH
	}
	return t.In(lang)
}

// String is the English, for logs and %v.
func (t Text) String() string { return t.EN }

// Bilingual says both languages are given.
func (t Text) Bilingual() bool { return t.EN != "" && t.ZH != "" }

// Lang is the language of the explanations: one of them, or both side by
// side.
type Lang string

const (
	EN   Lang = "en"
	ZH   Lang = "zh"
	Both Lang = "both"
)

func (l Lang) String() string { return string(l) }

// ParseLang parses "en", "zh" or "both".
func ParseLang(s string) (Lang, error) {
	switch l := Lang(strings.ToLower(s)); l {
	case EN, ZH, Both:
		return l, nil
	}
	return "", fmt.Errorf("unknown language %q: use en, zh or both", s)
}

// LangFromEnv is the language the locale asks for: the first of LC_ALL,
// LC_MESSAGES and LANG that is set decides, zh* meaning Chinese and
// anything else English.
func LangFromEnv(getenv func(string) string) Lang {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if val := getenv(v); val != "" {
			if strings.HasPrefix(strings.ToLower(val), "zh") {
				return ZH
			}
			return EN
		}
	}
	return EN
}

// Primary is the one language for text that is shown once (an error
// line): Chinese for zh, English otherwise.
func (l Lang) Primary() Lang {
	if l == ZH {
		return ZH
	}
	return EN
}

// Each lists the languages to show in turn: both for Both.
func (l Lang) Each() []Lang {
	if l == Both {
		return []Lang{EN, ZH}
	}
	return []Lang{l.Primary()}
}
