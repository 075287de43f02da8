package steps

import (
	"errors"
	"regexp"
	"strings"

	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// After an edit the learner may predict before running it (the TUI's p):
// "what will happen?", with one choice per way the tour can end from
// here — the edited call fails, a later call fails, a completion arrives
// with an error status, rdma_cm delivers another event than the one the
// tour waits for, or the tour ends as usual. These are the outcome
// classes the edit table compares between rxe and the sim. The question
// is answered by the first step that fails, or by the last step when
// none does, and judged by what happened, as a lesson's is.

// ErrLessonAsks is AskAboutEdit in a lesson that asks its own question:
// the lesson's page reveals its answer by that question, so it stays the
// only one.
var ErrLessonAsks = errors.New("this lesson asks its own question")

// AskAboutEdit asks what the next step, as edited, and the steps after it
// will do. It replaces an earlier edit question.
func (s *Session) AskAboutEdit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || s.next >= len(s.tour) {
		return ErrTourOver
	}
	if s.pred != nil && !s.pred.untilEnd {
		return ErrLessonAsks
	}
	p := &Prediction{
		Question: text.Text{EN: "You changed this call. What will happen?", ZH: "你改了这个调用。接下来会发生什么？"},
		Choices:  editChoices(s.tour, s.next),
		untilEnd: true,
	}
	s.pred = p
	// At stays empty: the edited step is not a lesson step, its page
	// stays the step's own.
	s.predState = PredictionState{Question: p.Question, Picked: -1, Actual: -1}
	for _, ch := range p.Choices {
		s.predState.Choices = append(s.predState.Choices, ch.Text)
	}
	return nil
}

// editChoices are the outcomes tour[at] and the steps after it can have.
func editChoices(tour []Step, at int) []Choice {
	edited := tour[at]
	fn := cFunction(edited.Call)
	out := []Choice{{Text: text.Text{EN: "nothing breaks: the tour ends as usual", ZH: "什么都不坏：教程照常走完"},
		happened: func(err error, _ *Session) bool { return err == nil }}}
	if fn != "" {
		out = append(out, callFailsChoice(edited.ID, fn))
	}
	later := tour[at+1:]
	if stepsCall(later, "ibv_", "rdma_") {
		out = append(out, Choice{Text: text.Text{EN: "a later call returns an error", ZH: "后面某个调用返回错误"},
			happened: func(err error, s *Session) bool {
				var ve *verbs.Error
				return errors.As(err, &ve) && s.runningStep() != edited.ID
			}})
	}
	if stepsCall(tour[at:], "ibv_poll_cq", "ibv_get_cq_event") {
		out = append(out, Choice{Text: text.Text{EN: "a completion arrives with an error status (IBV_WC_…)", ZH: "出现状态为错误的完成（IBV_WC_…）"},
			happened: func(err error, _ *Session) bool {
				var ce *CompletionError
				return errors.As(err, &ce)
			}})
	}
	if stepsCall(tour[at:], "rdma_get_cm_event") {
		out = append(out, Choice{Text: text.Text{EN: "rdma_cm delivers another event than the one awaited", ZH: "rdma_cm 送来的不是在等的那个事件"},
			happened: func(err error, _ *Session) bool {
				var ce *CMEventError
				return errors.As(err, &ce)
			}})
	}
	return out
}

func callFailsChoice(id StepID, fn string) Choice {
	return Choice{Text: text.Text{EN: fn + " itself returns an error", ZH: fn + " 本身返回错误"},
		happened: func(err error, s *Session) bool {
			var ve *verbs.Error
			return errors.As(err, &ve) && s.runningStep() == id
		}}
}

// cFunctionRE finds a verbs or rdma_cm call in a step's generic C.
var cFunctionRE = regexp.MustCompile(`\b((?:ibv|rdma)_[a-z_]+)\(`)

// cFunction is the call a step makes: the first verbs or rdma_cm call in
// its C that is not the wait for an event (a step that waits shows that
// call after the one it makes).
func cFunction(call string) string {
	for _, m := range cFunctionRE.FindAllStringSubmatch(call, -1) {
		if m[1] != "rdma_get_cm_event" && m[1] != "rdma_ack_cm_event" {
			return m[1]
		}
	}
	if m := cFunctionRE.FindStringSubmatch(call); m != nil {
		return m[1]
	}
	return ""
}

// stepsCall says one of tour's steps calls a function starting with one
// of prefixes.
func stepsCall(tour []Step, prefixes ...string) bool {
	for _, st := range tour {
		for _, m := range cFunctionRE.FindAllStringSubmatch(st.Call, -1) {
			for _, p := range prefixes {
				if strings.HasPrefix(m[1], p) {
					return true
				}
			}
		}
	}
	return false
}

// runningStep is the ID of the step RunNext is running (the one whose
// end reveal judges).
func (s *Session) runningStep() StepID {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next < len(s.tour) {
		return s.tour[s.next].ID
	}
	return ""
}
