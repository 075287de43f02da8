// Package steps is the tour: one Step per keypress, each making one real
// verbs/rdma_cm call on a Session that owns every resource of one side.
// It knows nothing about terminals; the TUI and the plain runner both drive
// it through Session.RunNext and render Session.Snapshot.
package steps

import (
	"context"

	"github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
)

// Outcome is what one step did.
type Outcome struct {
	// Call is the C the step executed, with the actual values, one
	// statement per line, each result a trailing comment: C's screen
	// rendering.
	Call string
	// C is the statements the step executed, for export-c.
	C []cprint.Stmt
	// Results are the named values the call produced, in order.
	Results []KV
	// Note says in words what happened.
	Note text.Text
	// Failure explains the error the step ended with, if any.
	Failure text.Text
	// Expected says the failure is the point of the lesson being run.
	Expected bool
	// Measured is a measured run's numbers (guide.MeasureChart draws
	// them); nil for every other step.
	Measured *Measurement `json:",omitempty"`
}

// KV is one named result: its name in both languages (declared once, in
// results.go), and its value, in both languages where it is words and
// the same in both (text.Same) where it is a number, an address, a C name
// or what the system said.
type KV struct{ Name, Value text.Text }

// Step is one keypress of the tour.
type Step struct {
	// ID names the explanation pages docs/en/<ID>.md and docs/zh/<ID>.md.
	ID    StepID
	Side  Role
	Title text.Text
	// Call is the C call in its generic form, shown before the step runs.
	Call string
	// Waits says the step blocks on the peer or the network (spinner).
	Waits bool
	// After names steps of the other side that must have run before this
	// one can complete; DemoPlan orders the two sides by it. IDs the other
	// tour does not have are ignored.
	After []StepID
	// Expect is set in lessons: the error this step should end with.
	Expect *Expect
	// Section is the part of the live state the step creates or changes.
	Section Section
	// Milestones are what the step reaches when it succeeds (milestone.go).
	Milestones Milestone
	// roomShared: a workshop room does this once for every attendee (its
	// PD, its shared counter), so an attendee's session skips it.
	roomShared bool
	// srqShared: a workshop room with an SRQ does this for every
	// attendee (it posts the RECVs to the SRQ; host_srq.go).
	srqShared bool
	run       func(ctx context.Context, s *Session) (Outcome, error)
	// lessonStep: the lesson added this step or changed its result.
	lessonStep bool
}
