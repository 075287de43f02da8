package tui

import (
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
