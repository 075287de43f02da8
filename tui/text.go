package tui

import "github.com/rdmatour/rdmatour/text"

// Language handling for the UI's own text (labels, help, messages). The
// explanations come from docs; step titles and notes from text.Text.

// nextLang is the language the l key switches to: en → zh → both → en.
func nextLang(l text.Lang) text.Lang {
	switch l {
	case text.EN:
		return text.ZH
	case text.ZH:
		return text.Both
	}
	return text.EN
}

// normLang maps anything but zh and both to en.
func normLang(l text.Lang) text.Lang {
	switch l {
	case text.ZH, text.Both:
		return l
	}
	return text.EN
}
