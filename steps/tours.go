package steps

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/verbs"
)

// The tour catalogue: every tour declared once, and everything outside
// the tour's own file (validation, the front ends, the workshop, export-c,
// the docs test) asks it rather than switching on a TourKind.
//
// Adding a fifth tour:
//  1. append TourFoo at the end of the TourKind constants below (the
//     hello carries the kind as a wire byte, so the order is fixed);
//  2. write steps/tour_foo.go: both sides' step tables, built from
//     common_steps.go and the shared step funcs, the new steps' IDs in
//     stepid.go, and Milestones on the steps that connect, land the data
//     and tear down (the roster and the wait notes read those);
//  3. add its row to Tours() — its lessons are those whose Tour is the
//     new kind;
//  4. add docs/{en,zh}/<id>.md for each new step ID (the docs test lists
//     the missing ones) and, if it has lessons, docs/{en,zh}/lesson-*.md.

// TourKind is which tour a side runs.
type TourKind uint8

// The tour kinds, in hello wire order. TourWrite is the zero value, so a
// hello without a tour field (or no hello at all) means the write tour.
const (
	TourWrite TourKind = iota
	TourRead
	TourAtomic
	TourUD
	tourKinds // number of known kinds
)

// TourDef is one tour: its name, how each side's steps are built, what it
// needs, and where it can run.
type TourDef struct {
	Kind TourKind
	// Name is the --tour value and what the hello's flags say.
	Name string
	// build is role's tour before any lesson; n is the client's notify
	// mode, used only by a tour that Notifies.
	build func(role Role, n Notify) []Step
	// Notifies says the client tells the server the data is there in one
	// of the --notify ways (the write tour): --notify and the manual
	// track apply, and Result.Via and Notice mean something.
	Notifies bool
	// DataAccess is what the server's data MR is registered with.
	DataAccess verbs.Access
	// NeedsAtomics: the device must do atomics (atomic_cap other than
	// IBV_ATOMIC_NONE; the tour's query-device step checks).
	NeedsAtomics bool
	// SharedCounter: a workshop room of this tour keeps one counter that
	// every attendee's atomics hit.
	SharedCounter bool
	// SendsMessage: the client sends --message (WRITEs it, or SENDs it
	// as a datagram); the other tours have nothing to carry it.
	SendsMessage bool
	// noWorkshop is why a workshop room cannot serve this tour (empty:
	// it can).
	noWorkshop Text
	// summary is the result sentence built from a Result's fields, for a
	// tour whose steps do not write Result.Summary themselves or a
	// recording made before they did (nil: Summary is always set).
	summary func(r *Result) Text
	// validate refuses what this tour cannot do with cfg (nil: nothing
	// beyond the common checks).
	validate func(cfg Config) error
}

// Tours lists every tour, in TourKind order.
func Tours() []TourDef {
	return []TourDef{writeTourDef(), readTourDef(), atomicTourDef(), udTourDef()}
}

// TourOf is the catalogue row of kind; ok is false for a kind this build
// does not know (a newer peer's hello).
func TourOf(kind TourKind) (TourDef, bool) {
	if kind >= tourKinds {
		return TourDef{}, false
	}
	return Tours()[kind], true
}

// Sentence is the result in one sentence, what the end banner shows:
// Summary, or the tour's sentence from the result's fields when Summary
// is empty (a write-tour recording made before the write tour set it).
func (r *Result) Sentence() Text {
	if r.Summary.EN != "" {
		return r.Summary
	}
	if d, ok := TourOf(r.Tour); ok && d.summary != nil {
		return d.summary(r)
	}
	return Text{}
}

// Workshop is nil when a workshop room can serve the tour, else a
// ConfigError saying why not.
func (d TourDef) Workshop() error {
	if d.noWorkshop.EN == "" {
		return nil
	}
	return configError(d.noWorkshop.EN, d.noWorkshop.ZH)
}

// Lessons are the lessons that run on this tour, in teaching order.
func (d TourDef) Lessons() []Lesson {
	var out []Lesson
	for _, l := range Lessons() {
		if l.Tour == d.Kind {
			out = append(out, l)
		}
	}
	return out
}

func (k TourKind) String() string {
	if d, ok := TourOf(k); ok {
		return d.Name
	}
	return fmt.Sprintf("tour#%d", uint8(k))
}

// TourNames are the --tour values, in TourKind order (for flag help).
func TourNames() []string { return tourNames() }

// tourNames are the --tour values, in TourKind order.
func tourNames() []string {
	var names []string
	for _, d := range Tours() {
		names = append(names, d.Name)
	}
	return names
}

// ParseTourKind reads a --tour value; "" is the write tour.
func ParseTourKind(s string) (TourKind, error) {
	if s == "" {
		return TourWrite, nil
	}
	for _, d := range Tours() {
		if s == d.Name {
			return d.Kind, nil
		}
	}
	return 0, fmt.Errorf("unknown tour %q: choose one of %s", s, strings.Join(tourNames(), ", "))
}

// baseTour is the tour cfg's side runs before any lesson or track: the
// base a lesson changes.
func baseTour(cfg Config) []Step {
	d, ok := TourOf(cfg.Tour)
	if !ok {
		return nil // Validate refused it
	}
	return d.build(cfg.Role, cfg.Notify)
}

// AllStepIDs lists every step ID of every tour, track and lesson, once
// each: the set of pages docs/en and docs/zh must have.
func AllStepIDs() []StepID {
	seen := map[StepID]bool{}
	var ids []StepID
	add := func(tour []Step) {
		for _, st := range tour {
			if !seen[st.ID] {
				seen[st.ID] = true
				ids = append(ids, st.ID)
			}
		}
	}
	for _, d := range Tours() {
		for _, role := range []Role{Server, Client} {
			for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
				add(d.build(role, n))
			}
		}
	}
	for _, t := range manualTours() {
		add(t)
	}
	for _, l := range Lessons() {
		for _, role := range []Role{Server, Client} {
			for _, rnr := range []uint8{0, MaxRNRRetry} {
				cfg := Config{Role: role, Notify: l.Notify, Tour: l.Tour, RNRRetry: rnr}
				tour, _ := l.apply(cfg, baseTour(cfg)) // TestEveryLessonOnEveryTour checks the error
				add(tour)
			}
		}
	}
	return ids
}
