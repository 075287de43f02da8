package steps

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// A lesson asks its learner to predict before it runs: which status, errno
// or event the mistake will produce. The step that answers the question
// then says whether the prediction was right, judged by what actually
// happened on this run (the choices match errors, not a stored answer).

// Choice is one answer the learner can pick.
type Choice struct {
	Text text.Text
	// means says what this outcome would mean ("" where Text says it):
	// why a pick differs from what happened.
	means text.Text
	// happened reports whether the answering step ended this way: its
	// error (nil for success) and the session (for what landed).
	happened func(err error, s *Session) bool
}

// Prediction is the question a lesson asks one side.
type Prediction struct {
	Question text.Text
	Choices  []Choice
	// At is the ID of this side's step whose end answers the question.
	At StepID
	// untilEnd: the question is about the rest of the tour (an edit's,
	// editpredict.go): the first step that fails answers it, or the
	// last step when none does; At is not used.
	untilEnd bool
}

// answeredBy says the end of step id, with err, answers the question;
// last says id is the tour's last step.
func (p *Prediction) answeredBy(id StepID, err error, last bool) bool {
	if p.untilEnd {
		return err != nil || last
	}
	return id == p.At
}

// PredictionState is the question, the learner's pick and, once the
// answering step ran, what happened: for rendering.
type PredictionState struct {
	Question text.Text
	Choices  []text.Text
	// Means says, for each choice, what that outcome would mean (empty
	// where the choice says it itself, or in a recording made before).
	Means []text.Text
	At    string
	// Picked is the chosen index, -1 while the learner has not chosen.
	Picked int
	// Skipped: no prediction was asked (--auto).
	Skipped bool
	// Revealed is true once the step At ran; Actual is the index of the
	// choice that happened, -1 when none of them did.
	Revealed bool
	Actual   int
}

// Pending says the learner still has to predict before the tour runs.
func (p *PredictionState) Pending() bool {
	return p != nil && p.Picked < 0 && !p.Skipped && !p.Revealed
}

// Right says the pick matched what happened.
func (p *PredictionState) Right() bool {
	return p != nil && p.Revealed && p.Picked >= 0 && p.Picked == p.Actual
}

// Verdict is the sentence the answering step adds to its note: ✓ or ✗,
// and for a wrong pick what it would have meant next to what did happen.
func (p *PredictionState) Verdict() text.Text {
	if p == nil || !p.Revealed || p.Picked < 0 {
		return text.Text{}
	}
	picked := p.Choices[p.Picked]
	if p.Right() {
		return text.Text{EN: fmt.Sprintf("✓ Your prediction, %s, was right%s.", picked.EN, p.meaning(p.Picked, text.EN)),
			ZH: fmt.Sprintf("✓ 你的预测「%s」是对的%s。", picked.ZH, p.meaning(p.Picked, text.ZH))}
	}
	actual := text.Text{EN: "none of the choices", ZH: "哪个选项都不是"}
	if p.Actual >= 0 {
		actual = p.Choices[p.Actual]
	}
	return text.Text{EN: fmt.Sprintf("✗ Your prediction was %s%s. What happened is %s%s.", picked.EN, p.meaning(p.Picked, text.EN), actual.EN, p.meaning(p.Actual, text.EN)),
		ZH: fmt.Sprintf("✗ 你预测的是「%s」%s。实际发生的是「%s」%s。", picked.ZH, p.meaning(p.Picked, text.ZH), actual.ZH, p.meaning(p.Actual, text.ZH))}
}

// meaning is ": what choice i means" in lang, "" when there is nothing
// to add.
func (p *PredictionState) meaning(i int, lang text.Lang) string {
	if i < 0 || i >= len(p.Means) || p.Means[i].EN == "" {
		return ""
	}
	if lang == text.ZH {
		return "：" + p.Means[i].In(lang)
	}
	return ": " + p.Means[i].EN
}

// Mark is ✓ or ✗ once the pick was judged, "" before (or with no pick).
func (p *PredictionState) Mark() string {
	switch {
	case p == nil || !p.Revealed || p.Picked < 0:
		return ""
	case p.Right():
		return "✓"
	}
	return "✗"
}

// ErrNoPrediction is Predict on a session whose lesson asks nothing.
var ErrNoPrediction = errors.New("this tour asks no prediction")

// Predict records the learner's choice (0-based). It may change until the
// answering step has run.
func (s *Session) Predict(choice int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pred == nil {
		return ErrNoPrediction
	}
	if choice < 0 || choice >= len(s.pred.Choices) {
		return fmt.Errorf("choice %d: pick 1 to %d", choice+1, len(s.pred.Choices))
	}
	if s.predState.Revealed {
		return errors.New("the answer is already on the screen")
	}
	s.predState.Picked = choice
	return nil
}

// SkipPrediction runs the lesson without asking (--auto).
func (s *Session) SkipPrediction() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.predState.Skipped = true
}

// Prediction returns the question's state; nil when the tour asks none.
func (s *Session) Prediction() *PredictionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.predictionLocked()
}

func (s *Session) predictionLocked() *PredictionState {
	if s.pred == nil {
		return nil
	}
	c := s.predState
	c.Choices = append([]text.Text(nil), c.Choices...)
	c.Means = append([]text.Text(nil), c.Means...)
	return &c
}

// initPrediction sets the question up for a new session.
func (s *Session) initPrediction(p *Prediction) {
	if p == nil {
		return
	}
	s.pred = p
	s.predState = PredictionState{Question: p.Question, At: string(p.At), Picked: -1, Actual: -1}
	for _, ch := range p.Choices {
		s.predState.Choices = append(s.predState.Choices, ch.Text)
		s.predState.Means = append(s.predState.Means, ch.means)
	}
}

// reveal judges the prediction once step id ended with err, and returns
// the verdict for the step's note.
func (s *Session) reveal(id StepID, err error) text.Text {
	s.mu.Lock()
	p := s.pred
	last := s.next == len(s.tour)-1
	revealed := s.predState.Revealed
	s.mu.Unlock()
	if p == nil || revealed || !p.answeredBy(id, err, last) {
		return text.Text{}
	}
	actual := -1
	for i, ch := range p.Choices {
		if ch.happened(err, s) {
			actual = i
			break
		}
	}
	s.mu.Lock()
	s.predState.Revealed, s.predState.Actual = true, actual
	st := s.predState
	s.mu.Unlock()
	return st.Verdict()
}

// The ways a step can end, as choices.

func statusChoice(st verbs.WCStatus) Choice {
	label := st.CName() + " (" + st.String() + ")"
	return Choice{Text: text.Text{EN: label, ZH: label}, means: statusMeans[st], happened: func(err error, _ *Session) bool {
		if st == verbs.WCSuccess {
			return err == nil
		}
		var ce *CompletionError
		return errors.As(err, &ce) && ce.WC.Status == st
	}}
}

// errnoChoice: fn returns errno (0: the call succeeds).
func errnoChoice(fn string, errno syscall.Errno) Choice {
	t := text.Text{EN: fn + " returns 0", ZH: fn + " 返回 0"}
	if errno != 0 {
		t = text.Text{EN: fn + " fails with " + verbs.ErrnoName(errno), ZH: fn + " 返回 " + verbs.ErrnoName(errno)}
	}
	return Choice{Text: t, means: errnoMeans[errno], happened: func(err error, _ *Session) bool {
		if errno == 0 {
			return err == nil
		}
		var ve *verbs.Error
		return errors.As(err, &ve) && ve.Func == fn && ve.Errno == errno
	}}
}

// eventChoice: the wait ends with rdma_cm event ev.
func eventChoice(ev verbs.CMEventType, gloss text.Text) Choice {
	return Choice{Text: text.Text{EN: ev.String() + " (" + gloss.EN + ")", ZH: ev.String() + "（" + gloss.ZH + "）"}, happened: func(err error, _ *Session) bool {
		var ce *CMEventError
		return errors.As(err, &ce) && ce.Got == ev
	}}
}

// landedChoice: the step succeeded and the client's message is in the
// server's buffer (want) or the buffer is still empty (!want).
func landedChoice(want bool, t text.Text) Choice {
	return Choice{Text: t, happened: func(err error, s *Session) bool {
		if err != nil {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		got := s.result != nil && len(s.result.Message) > 0
		return got == want
	}}
}

// failedChoice: the step failed in some way no other choice names.
func failedChoice(t text.Text) Choice {
	return Choice{Text: t, happened: func(err error, _ *Session) bool { return err != nil }}
}
