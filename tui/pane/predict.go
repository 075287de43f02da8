package pane

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// predictOrder is the order sessions ask in: the client first (most
// lessons show their answer there), then the server.
func predictOrder(demo bool) []int {
	if demo {
		return []int{1, 0}
	}
	return []int{0}
}

// PendingPrediction is the question waiting for an answer among snaps,
// and its session; ok is false when none waits.
func PendingPrediction(snaps []steps.Snapshot, demo bool) (side int, p *steps.PredictionState, ok bool) {
	for _, i := range predictOrder(demo) {
		if i < len(snaps) && snaps[i].Prediction.Pending() {
			return i, snaps[i].Prediction, true
		}
	}
	return 0, nil, false
}

func (in *Input) pendingPrediction() (side int, p *steps.PredictionState, ok bool) {
	return PendingPrediction(in.Snaps, in.Demo)
}

// answersRevealed says every question asked has been answered by its step
// (or none was asked): the lesson page may show the answer.
func (in *Input) answersRevealed() bool {
	for _, s := range in.Snaps {
		if p := s.Prediction; p != nil && !p.Revealed && !p.Skipped {
			return false
		}
	}
	return true
}

// predictionLines is the pending question, drawn at the top of the
// explanation pane.
func (in *Input) predictionLines(w int) []string {
	side, p, ok := in.pendingPrediction()
	if !ok {
		return nil
	}
	st := in.Styles
	lang := in.Lang
	who := in.Snaps[side].Role.String()
	var out []string
	out = append(out, st.Expected.R(termtext.Fit(text.Text{EN: "Predict first (" + who + ")", ZH: "先猜一猜（" + who + "）"}.In(in.Lang), w)))
	out = append(out, termtext.Wrap(p.Question.In(lang), w)...)
	out = append(out, "")
	for i, c := range p.Choices {
		for j, l := range termtext.Wrap(c.In(lang), w-4) {
			mark := "    "
			if j == 0 {
				mark = st.Bold.R(fmt.Sprintf(" %d) ", i+1))
			}
			out = append(out, mark+l)
		}
	}
	out = append(out, "")
	out = append(out, termtext.Wrap(text.Text{EN: fmt.Sprintf("Press 1-%d. The step that shows the answer will say whether you were right; Enter runs the tour once you have chosen.", len(p.Choices)), ZH: fmt.Sprintf("按 1-%d 选择。揭晓答案的那一步会告诉你猜得对不对；选好之后按回车开始。", len(p.Choices))}.In(in.Lang), w)...)
	return append(out, st.Dim.R(strings.Repeat("─", max(0, w))), "")
}

// LessonStatus is the lesson line's tail: the question while it waits,
// the pick until the answer, then the lesson's summary.
func (in *Input) LessonStatus(summary string) string {
	if _, p, ok := in.pendingPrediction(); ok {
		return text.Text{EN: fmt.Sprintf("predict first: keys 1-%d", len(p.Choices)), ZH: fmt.Sprintf("先猜一猜：按 1-%d", len(p.Choices))}.In(in.Lang)
	}
	if !in.answersRevealed() {
		for _, i := range predictOrder(in.Demo) {
			if p := in.Snaps[i].Prediction; p != nil && p.Picked >= 0 {
				return text.Text{EN: "your prediction: ", ZH: "你的预测："}.In(in.Lang) + p.Choices[p.Picked].In(in.Lang)
			}
		}
		return ""
	}
	return summary
}

// lessonPageMarkdown is the lesson page as it may be shown now: up to its
// question until the answers are out. The id names the variant for the
// Markdown cache.
func (in *Input) lessonPageMarkdown(md string) (string, string) {
	if in.answersRevealed() {
		return md, "full"
	}
	return docs.BeforePrediction(md), "before-prediction"
}

// lessonStepMarkdown is a step page as it may be shown now (see
// guide.LessonStepPage), with the variant for the Markdown cache.
func (in *Input) lessonStepMarkdown(md string, ss steps.StepStatus, lang text.Lang) (string, string) {
	if !ss.LessonStep {
		return md, ""
	}
	var pred *steps.PredictionState
	for _, s := range in.Snaps {
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
	return guide.LessonStepPage(md, ss, pred, lang), variant
}
