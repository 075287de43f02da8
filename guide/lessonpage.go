package guide

import (
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// LessonStepPage is the page to show for a step whose result the lesson
// changes (StepStatus.LessonStep): before it ran, only a line saying its
// page waits for the run (the normal page would give the answer, or
// describe the correct run as if it were this one); after, what happened
// on this run first, then the page without the correct run's "What to
// watch". md is the step's normal page in lang.
func LessonStepPage(md string, ss steps.StepStatus, pred *steps.PredictionState, lang text.Lang) string {
	o := ss.Outcome
	if o == nil {
		t := text.Text{EN: "## This step shows the lesson's result\n\nIts page appears once it has run, so that it cannot give the answer away.",
			ZH: "## 这一步揭晓课程的结果\n\n它的讲解要等执行之后才显示，免得提前泄露答案。"}.In(lang)
		if pred.Pending() {
			t += text.Text{EN: " First make your prediction: keys 1–4.", ZH: "先做出你的预测：按 1–4。"}.In(lang)
		}
		return docs.StepPageInLesson(md, false, t)
	}
	var b strings.Builder
	b.WriteString(text.Text{EN: "## What happened\n\n", ZH: "## 发生了什么\n\n"}.In(lang))
	switch {
	case o.Expected:
		b.WriteString(text.Text{EN: "The error the lesson expects at this step: ", ZH: "本课在这一步预期的错误："}.In(lang) + o.Failure.In(lang))
	case o.Failure.EN != "":
		b.WriteString(text.Text{EN: "The step failed: ", ZH: "这一步失败了："}.In(lang) + o.Failure.In(lang))
	default:
		b.WriteString(text.Text{EN: "The call succeeded.", ZH: "调用成功。"}.In(lang))
	}
	if note := o.Note.In(lang); note != "" {
		b.WriteString("\n\n" + note)
	}
	return docs.StepPageInLesson(md, true, b.String())
}
