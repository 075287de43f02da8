package pane

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

func (in *Input) explainTitle() string {
	if in.Page.ShowGlossary {
		return text.Text{EN: "Glossary", ZH: "术语表"}.Label(in.Lang) + " · T: " + text.Text{EN: "step page", ZH: "步骤讲解"}.In(in.Lang)
	}
	if in.Page.ShowLesson && in.Page.Lesson != "" {
		return text.Text{EN: "Lesson", ZH: "课程"}.Label(in.Lang) + " · " + in.Page.Lesson + " · L: " + text.Text{EN: "step page", ZH: "步骤讲解"}.In(in.Lang)
	}
	side, idx := in.curStep()
	t := text.Text{EN: "Explanation", ZH: "讲解"}.Label(in.Lang)
	if ss, ok := in.stepStatus(side, idx); ok {
		t += " · " + ss.ID
	}
	if in.Page.LessonDoc {
		t += " · L: " + text.Text{EN: "lesson page", ZH: "课程讲解"}.In(in.Lang)
	}
	return t
}

// explainLines renders the page(s) of the current step, or the lesson's.
func (in *Input) explainLines(w int) []string {
	return append(in.predictionLines(w), in.pageLines(w)...)
}

// pageLines is the page of the current step, the lesson's or the glossary.
func (in *Input) pageLines(w int) []string {
	side, idx := in.curStep()
	ss, ok := in.stepStatus(side, idx)
	if in.Page.ShowLesson && in.Page.Lesson != "" {
		snap := in.Snaps[0]
		ss, ok = steps.StepStatus{ID: LessonPageID(in.Page.Lesson), Title: snap.LessonTitle}, true
	}
	if in.Page.ShowGlossary {
		ss, ok = steps.StepStatus{ID: docs.GlossaryID, Title: text.Text{EN: "Glossary", ZH: "术语表"}}, true
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

func (in *Input) page(l text.Lang, ss steps.StepStatus, w int) []string {
	lang := l.String()
	var md string
	var err error
	if in.Page.Docs == nil {
		err = fmt.Errorf("no docs")
	} else {
		md, err = in.Page.Docs(lang, ss.ID)
	}
	if err != nil || strings.TrimSpace(md) == "" {
		out := []string{in.Styles.Bold.R(ss.Title.In(l))}
		if ss.Outcome != nil {
			out = append(out, termtext.Wrap(ss.Outcome.Note.In(l), w)...)
		}
		msg := text.Text{EN: "(no explanation page for this step yet)", ZH: "（这一步的讲解页面还没有）"}.In(l)
		return append(out, in.Styles.Dim.R(msg))
	}
	variant := ""
	switch {
	case ss.ID == LessonPageID(in.Page.Lesson):
		md, variant = in.lessonPageMarkdown(md)
	default:
		md, variant = in.lessonStepMarkdown(md, ss, l)
	}
	if lines := in.Page.Markdown.Render(lang, ss.ID+"#"+variant, md, w); lines != nil {
		return lines
	}
	return termtext.Wrap(md, w)
}
