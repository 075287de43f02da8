package plain

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rdmatour/rdmatour/docs"
	"github.com/rdmatour/rdmatour/guide"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
)

// predict asks the lesson's question on s before the tour runs: a prompt
// when the runner reads Enter, nothing with --auto (the lesson runs
// without a prediction). Input that is not a choice is asked again; end
// of input skips the question.
func (p *Runner) predict(ctx context.Context, s steps.Runner) error {
	pred := s.Prediction()
	if !pred.Pending() {
		return nil
	}
	if p.in == nil {
		s.SkipPrediction()
		return nil
	}
	fmt.Fprintf(p.out, "\n%s %s\n", text.Text{EN: "Predict (" + s.Config().Role.String() + "):", ZH: "先猜一猜（" + s.Config().Role.String() + "）："}.Joined(p.lang), pred.Question.Joined(p.lang))
	for i, c := range pred.Choices {
		fmt.Fprintf(p.out, "  %d) %s\n", i+1, c.Joined(p.lang))
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		fmt.Fprintf(p.out, "  %s", text.Text{EN: fmt.Sprintf("your prediction (1-%d): ", len(pred.Choices)), ZH: fmt.Sprintf("你的预测（1-%d）：", len(pred.Choices))}.Joined(p.lang))
		line, ok, err := p.in.nextLine(ctx)
		if err != nil {
			return err
		}
		if !ok {
			p.in = nil // input closed: run the rest straight through
			s.SkipPrediction()
			return nil
		}
		if n, cerr := strconv.Atoi(strings.TrimSpace(line)); cerr == nil && s.Predict(n-1) == nil {
			fmt.Fprintf(p.out, "  %s\n", text.Text{EN: "noted: the step that shows the answer will say whether you were right", ZH: "记下了：揭晓答案的那一步会告诉你猜得对不对"}.Joined(p.lang))
			return nil
		}
		fmt.Fprintf(p.out, "  %s\n", text.Text{EN: fmt.Sprintf("type a number from 1 to %d and press Enter", len(pred.Choices)), ZH: fmt.Sprintf("请输入 1 到 %d 之间的数字并回车", len(pred.Choices))}.Joined(p.lang))
	}
}

// stepPage is the page printed before a step: a step the lesson changes
// keeps its answer back until it ran (steps.LessonStepPage).
func (p *Runner) stepPage(s steps.Runner, idx int, lang text.Lang) (string, bool) {
	snap := s.Snapshot()
	page, err := p.docs(lang.String(), snap.Steps[idx].ID)
	if err != nil {
		return "", false
	}
	if ss := snap.Steps[idx]; ss.LessonStep {
		page = guide.LessonStepPage(page, ss, snap.Prediction, lang)
	}
	return page, true
}

// afterLessonStep prints what happened on a step the lesson changes, with
// its page now that the answer is out.
func (p *Runner) afterLessonStep(s steps.Runner, idx int) {
	snap := s.Snapshot()
	if !p.explain || idx >= len(snap.Steps) || !snap.Steps[idx].LessonStep || snap.Steps[idx].Outcome == nil {
		return
	}
	for _, l := range p.lang.Each() {
		if page, ok := p.stepPage(s, idx, l); ok {
			fmt.Fprintln(p.out, indent(termtext.PlainPage(l.String(), string(snap.Steps[idx].ID), page, plainPageWidth)))
		}
	}
}

// lessonPage is the lesson's page: up to its question before the tour,
// the rest (the answer) after it.
func (p *Runner) lessonPage(lang text.Lang, id string, answer bool) (string, bool) {
	page, err := p.docs(lang.String(), id)
	if err != nil {
		return "", false
	}
	before := docs.BeforePrediction(page)
	if !answer {
		return before, true
	}
	rest := strings.TrimPrefix(page, before)
	return rest, rest != ""
}
