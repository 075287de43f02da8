package steps

import "fmt"

// UnknownStepError is a tour edit (a lesson's, or a tour built on another
// one) naming a step the tour does not have. It is a bug in the lesson or
// the tour table, caught when the session is made rather than left to do
// nothing: TestEveryLessonOnEveryTour runs every lesson on every tour.
type UnknownStepError struct {
	// Op is the edit: "edit", "insert after" or "remove".
	Op string
	ID StepID
	// Side is the side whose tour was being edited.
	Side Role
}

func (e *UnknownStepError) Error() string {
	return fmt.Sprintf("tour edit %s %q: the %s's tour has no such step", e.Op, e.ID, e.Side)
}

// tourEdit changes a copy of a tour by step ID. The first ID it cannot
// find is kept as its error and later edits are skipped, so a lesson
// writes its edits one per line and the caller checks once (Result).
type tourEdit struct {
	tour []Step
	side Role
	err  error
}

func newTourEdit(side Role, tour []Step) *tourEdit {
	return &tourEdit{tour: append([]Step(nil), tour...), side: side}
}

// find is the index of id, or -1 and the edit's error set.
func (t *tourEdit) find(op string, id StepID) int {
	if t.err != nil {
		return -1
	}
	if i := indexOf(t.tour, id); i >= 0 {
		return i
	}
	t.err = &UnknownStepError{Op: op, ID: id, Side: t.side}
	return -1
}

// edit applies f to the step id.
func (t *tourEdit) edit(id StepID, f func(*Step)) {
	if i := t.find("edit", id); i >= 0 {
		f(&t.tour[i])
	}
}

// has reports whether the tour has step id (for edits that apply only
// where a step exists, said so at the call).
func (t *tourEdit) has(id StepID) bool { return indexOf(t.tour, id) >= 0 }

// insertAfter puts st right after the step id.
func (t *tourEdit) insertAfter(id StepID, st Step) {
	i := t.find("insert after", id)
	if i < 0 {
		return
	}
	out := append([]Step(nil), t.tour[:i+1]...)
	out = append(out, st)
	t.tour = append(out, t.tour[i+1:]...)
}

// replace puts st in the place of the step id.
func (t *tourEdit) replace(id StepID, st Step) {
	if i := t.find("replace", id); i >= 0 {
		t.tour[i] = st
	}
}

// remove drops the step id.
func (t *tourEdit) remove(id StepID) {
	if i := t.find("remove", id); i >= 0 {
		t.tour = append(t.tour[:i:i], t.tour[i+1:]...)
	}
}

// Result is the edited tour, or the first unknown step.
func (t *tourEdit) Result() ([]Step, error) { return t.tour, t.err }

func indexOf(tour []Step, id StepID) int {
	for i, st := range tour {
		if st.ID == id {
			return i
		}
	}
	return -1
}

// insertBefore puts st right before the step id.
func (t *tourEdit) insertBefore(id StepID, st Step) {
	i := t.find("insert before", id)
	if i < 0 {
		return
	}
	out := append([]Step(nil), t.tour[:i]...)
	out = append(out, st)
	t.tour = append(out, t.tour[i:]...)
}

// cutAfter drops every step after id but the tour's last (its
// teardown): a lesson whose failure leaves nothing else to run.
func (t *tourEdit) cutAfter(id StepID) {
	i := t.find("cut after", id)
	if i < 0 || i >= len(t.tour)-1 {
		return
	}
	last := t.tour[len(t.tour)-1]
	t.tour = append(t.tour[:i+1:i+1], last)
}
