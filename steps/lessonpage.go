package steps

import (
	"strings"

	"github.com/rdmatour/rdmatour/docs"
)

// LessonStepPage is the page to show for a step whose result the lesson
// changes (StepStatus.LessonStep): before it ran, only a line saying its
// page waits for the run (the normal page would give the answer, or
// describe the correct run as if it were this one); after, what happened
// on this run first, then the page without the correct run's "What to
// watch". md is the step's normal page in lang.
func LessonStepPage(md string, ss StepStatus, pred *PredictionState, lang string) string {
	o := ss.Outcome
	if o == nil {
		t := Text{"## This step shows the lesson's result\n\nIts page appears once it has run, so that it cannot give the answer away.",
			"## 这一步揭晓课程的结果\n\n它的讲解要等执行之后才显示，免得提前泄露答案。"}.In(lang)
		if pred.Pending() {
			t += Text{" First make your prediction: keys 1–4.", "先做出你的预测：按 1–4。"}.In(lang)
		}
		return docs.StepPageInLesson(md, false, t)
	}
	var b strings.Builder
	b.WriteString(Text{"## What happened\n\n", "## 发生了什么\n\n"}.In(lang))
	switch {
	case o.Expected:
		b.WriteString(Text{"The error this lesson is about: ", "本课要讲的错误："}.In(lang) + o.Failure.In(lang))
	case o.Failure.EN != "":
		b.WriteString(Text{"The step failed: ", "这一步失败了："}.In(lang) + o.Failure.In(lang))
	default:
		b.WriteString(Text{"The call succeeded.", "调用成功。"}.In(lang))
	}
	if note := o.Note.In(lang); note != "" {
		b.WriteString("\n\n" + note)
	}
	return docs.StepPageInLesson(md, true, b.String())
}

// markLessonSteps marks the steps of lesson that the lesson added to base
// or whose result it changed.
func markLessonSteps(base, lesson []Step) []Step {
	for i := range lesson {
		if lesson[i].Expect != nil || indexOf(base, lesson[i].ID) < 0 {
			lesson[i].lessonStep = true
		}
	}
	return lesson
}
