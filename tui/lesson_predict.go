package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/steps"
)

// A lesson asks before it runs: the explanation pane shows the question
// (and the lesson page up to it), keys 1-4 choose, and Enter runs nothing
// until every side that asks has an answer. The steps judge the answer
// (steps.PredictionState); the model only forwards the key.

// predictOrder is the order sessions ask in: the client first (most
// lessons show their answer there), then the server.
func (m *model) predictOrder() []int {
	if m.demo {
		return []int{1, 0}
	}
	return []int{0}
}

// pendingPrediction is the question waiting for an answer, and its
// session; ok is false when none waits.
func (m *model) pendingPrediction() (side int, p *steps.PredictionState, ok bool) {
	for _, i := range m.predictOrder() {
		if i < len(m.snaps) && m.snaps[i].Prediction.Pending() {
			return i, m.snaps[i].Prediction, true
		}
	}
	return 0, nil, false
}

// predictKey records a 1-4 key as the pending question's answer; it
// reports whether the key was one.
func (m *model) predictKey(k string) bool {
	side, p, ok := m.pendingPrediction()
	if !ok {
		return false
	}
	n, err := strconv.Atoi(k)
	if err != nil || n < 1 || n > len(p.Choices) {
		return false
	}
	if m.sessions[side].Predict(n-1) != nil {
		return false
	}
	m.refresh()
	m.pane(pane{paneExplain, 0}).follow()
	return true
}

// answersRevealed says every question asked has been answered by its step
// (or none was asked): the lesson page may show the answer.
func (m *model) answersRevealed() bool {
	for _, s := range m.snaps {
		if p := s.Prediction; p != nil && !p.Revealed && !p.Skipped {
			return false
		}
	}
	return true
}

// predictionLines is the pending question, drawn at the top of the
// explanation pane.
func (m *model) predictionLines(w int) []string {
	side, p, ok := m.pendingPrediction()
	if !ok {
		return nil
	}
	st := m.styles
	lang := textLang(m.lang)
	who := m.snaps[side].Role.String()
	var out []string
	out = append(out, st.Expected.R(fit(tr(m.lang, "Predict first ("+who+")", "先猜一猜（"+who+"）"), w)))
	out = append(out, wrap(p.Question.In(lang), w)...)
	out = append(out, "")
	for i, c := range p.Choices {
		for j, l := range wrap(c.In(lang), w-4) {
			mark := "    "
			if j == 0 {
				mark = st.Bold.R(fmt.Sprintf(" %d) ", i+1))
			}
			out = append(out, mark+l)
		}
	}
	out = append(out, "")
	out = append(out, wrap(tr(m.lang,
		fmt.Sprintf("Press 1-%d. The step that shows the answer will say whether you were right; Enter runs the tour once you have chosen.", len(p.Choices)),
		fmt.Sprintf("按 1-%d 选择。揭晓答案的那一步会告诉你猜得对不对；选好之后按回车开始。", len(p.Choices))), w)...)
	return append(out, st.Dim.R(strings.Repeat("─", max(0, w))), "")
}

// lessonStatus is the lesson line's tail: the question while it waits,
// the pick until the answer, then the lesson's summary.
func (m *model) lessonStatus(summary string) string {
	if _, p, ok := m.pendingPrediction(); ok {
		return tr(m.lang, fmt.Sprintf("predict first: keys 1-%d", len(p.Choices)), fmt.Sprintf("先猜一猜：按 1-%d", len(p.Choices)))
	}
	if !m.answersRevealed() {
		for _, i := range m.predictOrder() {
			if p := m.snaps[i].Prediction; p != nil && p.Picked >= 0 {
				return tr(m.lang, "your prediction: ", "你的预测：") + p.Choices[p.Picked].In(textLang(m.lang))
			}
		}
		return ""
	}
	return summary
}

// lessonPageMarkdown is the lesson page as it may be shown now: up to its
// question until the answers are out. The id names the variant for the
// Markdown cache.
func (m *model) lessonPageMarkdown(md string) (string, string) {
	if m.answersRevealed() {
		return md, "full"
	}
	return docs.BeforePrediction(md), "before-prediction"
}

// lessonStepMarkdown is a step page as it may be shown now (see
// steps.LessonStepPage), with the variant for the Markdown cache.
func (m *model) lessonStepMarkdown(md string, ss steps.StepStatus, lang string) (string, string) {
	if !ss.LessonStep {
		return md, ""
	}
	var pred *steps.PredictionState
	for _, s := range m.snaps {
		if s.Prediction != nil && s.Prediction.At == ss.ID {
			pred = s.Prediction
		}
	}
	variant := "lesson-before"
	if pred.Pending() {
		variant = "lesson-pending"
	}
	if ss.Outcome != nil {
		// What happened is fixed once the step ran.
		variant = "lesson-ran-" + strconv.Itoa(len(ss.Outcome.Note.EN)) + "-" + strconv.Itoa(len(ss.Outcome.Failure.EN))
	}
	return steps.LessonStepPage(md, ss, pred, lang), variant
}

// lessonsList is the explanation pane's page in the plain tour when L is
// pressed: every lesson, and how to run one.
func (m *model) lessonsList(w int) []string {
	st := m.styles
	lang := textLang(m.lang)
	out := []string{st.Bold.R(fit(tr(m.lang, "Lessons", "课程"), w))}
	out = append(out, wrap(tr(m.lang,
		"Each lesson is this tour with one deliberate mistake whose real error is the point. It asks you to predict the error first. Start both sides again with --lesson NAME:",
		"每一课都是在这个教程里故意犯一个错，真实出现的错误就是要讲的内容。开始前会先请你猜一猜会出什么错。两端都加 --lesson NAME 重新启动："), w)...)
	out = append(out, "")
	for _, l := range steps.Lessons() {
		name := "--lesson " + l.Name
		for i, line := range wrap(name+"  "+l.Title.In(lang), w) {
			if i == 0 {
				line = st.Expected.R(name) + strings.TrimPrefix(line, name)
			}
			out = append(out, line)
		}
	}
	return out
}

// lessonsHelp is the help screen's line about the lessons.
func (m *model) lessonsHelp() string {
	var names []string
	for _, l := range steps.Lessons() {
		names = append(names, l.Name)
	}
	return tr(m.lang, "Lessons (start both sides with --lesson NAME; L lists them in the plain tour; a lesson first asks you to predict, keys 1-4): ", "课程（两端都加 --lesson NAME 启动；普通教程里按 L 列出；课程开始前会请你先猜一猜，按 1-4）：") + strings.Join(names, ", ")
}
