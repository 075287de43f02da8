package pane

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
)

func (in *Input) explainTitle() string {
	if in.Page.ShowGlossary {
		return Title(in.Lang, "Glossary", "术语表") + " · T: " + Tr(in.Lang, "step page", "步骤讲解")
	}
	if in.Page.ShowLesson && in.Page.Lesson == "" {
		return Title(in.Lang, "Lessons", "课程") + " · L: " + Tr(in.Lang, "step page", "步骤讲解")
	}
	if in.Page.ShowLesson {
		return Title(in.Lang, "Lesson", "课程") + " · " + in.Page.Lesson + " · L: " + Tr(in.Lang, "step page", "步骤讲解")
	}
	side, idx := in.curStep()
	t := Title(in.Lang, "Explanation", "讲解")
	if ss, ok := in.stepStatus(side, idx); ok {
		t += " · " + ss.ID
	}
	if in.Page.LessonDoc {
		t += " · L: " + Tr(in.Lang, "lesson page", "课程讲解")
	}
	return t
}

// explainLines renders the page(s) of the current step, or the lesson's.
func (in *Input) explainLines(w int) []string {
	if in.Page.ShowLesson && in.Page.Lesson == "" && !in.Page.ShowGlossary {
		return in.lessonsList(w)
	}
	return append(in.predictionLines(w), in.pageLines(w)...)
}

// pageLines is the page of the current step, the lesson's or the glossary.
func (in *Input) pageLines(w int) []string {
	side, idx := in.curStep()
	ss, ok := in.stepStatus(side, idx)
	if in.Page.ShowLesson {
		snap := in.Snaps[0]
		ss, ok = steps.StepStatus{ID: LessonPageID(in.Page.Lesson), Title: snap.LessonTitle}, true
	}
	if in.Page.ShowGlossary {
		ss, ok = steps.StepStatus{ID: docs.GlossaryID, Title: steps.Text{EN: "Glossary", ZH: "术语表"}}, true
	}
	if !ok {
		return nil
	}
	var out []string
	for i, l := range in.Lang.Each() {
		if i > 0 {
			out = append(out, "", in.Styles.Dim.R(strings.Repeat("─", 3)+" 中文 "+strings.Repeat("─", max(0, w-9))), "")
		}
		out = append(out, in.page(l, ss, w)...)
	}
	return out
}

func (in *Input) page(l steps.Lang, ss steps.StepStatus, w int) []string {
	lang := l.String()
	var md string
	var err error
	if in.Page.Docs == nil {
		err = fmt.Errorf("no docs")
	} else {
		md, err = in.Page.Docs(lang, ss.ID)
	}
	if err != nil || strings.TrimSpace(md) == "" {
		out := []string{in.Styles.Bold.R(ss.Title.In(lang))}
		if ss.Outcome != nil {
			out = append(out, termtext.Wrap(ss.Outcome.Note.In(lang), w)...)
		}
		msg := Tr(l, "(no explanation page for this step yet)", "（这一步的讲解页面还没有）")
		return append(out, in.Styles.Dim.R(msg))
	}
	variant := ""
	switch {
	case ss.ID == LessonPageID(in.Page.Lesson):
		md, variant = in.lessonPageMarkdown(md)
	default:
		md, variant = in.lessonStepMarkdown(md, ss, lang)
	}
	if lines := in.Page.Markdown.Render(lang, ss.ID+"#"+variant, md, w); lines != nil {
		return lines
	}
	return termtext.Wrap(md, w)
}
