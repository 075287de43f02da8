package steps

import "github.com/rdmatour/rdmatour/text"

// PlanStep is a step of a tour as a recording keeps it: everything a
// front end shows about a step before and after it runs.
type PlanStep struct {
	ID      StepID
	Title   text.Text
	Call    string
	Waits   bool
	Section Section
	After   []StepID
	// Expect is what a lesson expects the step to fail with (nil: none).
	Expect *text.Text
}

// Plan is the tour as PlanSteps (what --record writes).
func Plan(tour []Step) []PlanStep {
	out := make([]PlanStep, 0, len(tour))
	for _, st := range tour {
		p := PlanStep{ID: st.ID, Title: st.Title, Call: st.Call, Waits: st.Waits, Section: st.Section, After: st.After}
		if st.Expect != nil {
			what := st.Expect.What
			p.Expect = &what
		}
		out = append(out, p)
	}
	return out
}

// DescribedTour is a recorded plan as Steps that only describe: their
// run is never called (a replay plays outcomes), and an expected failure
// matches nothing.
func DescribedTour(role Role, plan []PlanStep) []Step {
	out := make([]Step, 0, len(plan))
	for _, p := range plan {
		st := Step{ID: p.ID, Side: role, Title: p.Title, Call: p.Call, Waits: p.Waits, Section: p.Section, After: p.After}
		if p.Expect != nil {
			st.Expect = &Expect{What: *p.Expect, match: func(error) bool { return false }}
		}
		out = append(out, st)
	}
	return out
}

// NewStepStatus is step st as a snapshot shows it: its state, a copy of
// its outcome (nil before it ran), and whether the lesson changes it
// (the lesson added or edited it, or its end answers the prediction).
func NewStepStatus(st Step, state RunState, out *Outcome, pred *PredictionState) StepStatus {
	ss := StepStatus{ID: string(st.ID), Title: st.Title, Call: st.Call, State: state,
		LessonStep: st.lessonStep || (pred != nil && string(st.ID) == pred.At)}
	if out != nil {
		c := *out
		c.Results = append([]KV(nil), out.Results...)
		ss.Outcome = &c
	}
	return ss
}
