package tui

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
)

func (m *model) explainTitle() string {
	if m.showGlossary {
		return title(m.lang, "Glossary", "术语表") + " · T: " + tr(m.lang, "step page", "步骤讲解")
	}
	if m.showLesson && m.lesson == "" {
		return title(m.lang, "Lessons", "课程") + " · L: " + tr(m.lang, "step page", "步骤讲解")
	}
	if m.showLesson {
		return title(m.lang, "Lesson", "课程") + " · " + m.lesson + " · L: " + tr(m.lang, "step page", "步骤讲解")
	}
	side, idx := m.curStep()
	t := title(m.lang, "Explanation", "讲解")
	if ss, ok := m.stepStatus(side, idx); ok {
		t += " · " + ss.ID
	}
	if m.lessonDoc {
		t += " · L: " + tr(m.lang, "lesson page", "课程讲解")
	}
	return t
}

// explainLines renders the page(s) of the current step, or the lesson's.
func (m *model) explainLines(w int) []string {
	if m.showLesson && m.lesson == "" && !m.showGlossary {
		return m.lessonsList(w)
	}
	return append(m.predictionLines(w), m.pageLines(w)...)
}

// pageLines is the page of the current step, the lesson's or the glossary.
func (m *model) pageLines(w int) []string {
	side, idx := m.curStep()
	ss, ok := m.stepStatus(side, idx)
	if m.showLesson {
		snap := m.snaps[0]
		ss, ok = steps.StepStatus{ID: lessonPageID(m.lesson), Title: snap.LessonTitle}, true
	}
	if m.showGlossary {
		ss, ok = steps.StepStatus{ID: docs.GlossaryID, Title: steps.Text{EN: "Glossary", ZH: "术语表"}}, true
	}
	if !ok {
		return nil
	}
	var out []string
	for i, l := range m.lang.Each() {
		if i > 0 {
			out = append(out, "", m.styles.Dim.R(strings.Repeat("─", 3)+" 中文 "+strings.Repeat("─", max(0, w-9))), "")
		}
		out = append(out, m.page(l, ss, w)...)
	}
	return out
}

func (m *model) page(l steps.Lang, ss steps.StepStatus, w int) []string {
	lang := l.String()
	var md string
	var err error
	if m.docs == nil {
		err = fmt.Errorf("no docs")
	} else {
		md, err = m.docs(lang, ss.ID)
	}
	if err != nil || strings.TrimSpace(md) == "" {
		out := []string{m.styles.Bold.R(ss.Title.In(lang))}
		if ss.Outcome != nil {
			out = append(out, termtext.Wrap(ss.Outcome.Note.In(lang), w)...)
		}
		msg := tr(l, "(no explanation page for this step yet)", "（这一步的讲解页面还没有）")
		return append(out, m.styles.Dim.R(msg))
	}
	variant := ""
	switch {
	case ss.ID == lessonPageID(m.lesson):
		md, variant = m.lessonPageMarkdown(md)
	default:
		md, variant = m.lessonStepMarkdown(md, ss, lang)
	}
	if lines := m.md.Render(lang, ss.ID+"#"+variant, md, w); lines != nil {
		return lines
	}
	return termtext.Wrap(md, w)
}
