package pane

import (
	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// LangLabel names lang in the header.
func LangLabel(lang text.Lang) string {
	switch lang {
	case text.ZH:
		return "中文"
	case text.Both:
		return "EN+中文"
	}
	return "EN"
}

// inLangs wraps t in the UI's language(s): both lines in "both".
func (in *Input) inLangs(t text.Text, w int) []string {
	if t.EN == "" {
		return nil
	}
	if in.Lang == text.Both {
		out := termtext.Wrap(t.EN, w)
		if t.ZH != "" && t.ZH != t.EN {
			out = append(out, termtext.Wrap(t.ZH, w)...)
		}
		return out
	}
	return termtext.Wrap(t.In(in.Lang), w)
}

// LessonPageID is the docs page of a lesson.
func LessonPageID(name string) string { return docs.LessonPrefix + name }
