package steps

import (
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/text"
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
//     and tear down (the roster and the wait notes read those); an RC
//     tour is an rcTour over the skeleton in rc_steps.go, which takes the
//     QP's steps from the track (rc_track.go), so build passes the track
//     on if the tour runs on more than the cm track;
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
	// build is role's tour on track before any lesson; n is the
	// client's notify mode, used only by a tour that Notifies, and track
	// only by a tour that runs on the manual track (Validate refuses it
	// for the others).
	build func(role Role, n Notify, track Track) []Step
	// Notifies says the client tells the server the data is there in one
	// of the --notify ways (the write tour): --notify and the manual
	// track apply, and Result.Via and Notice mean something.
	Notifies bool
	// DataAccess is what the server's data MR is registered with: the
	// one remote right this tour's client uses on it and no other
	// (least privilege; the seed gives REMOTE_WRITE|REMOTE_READ to
	// every tour). A client's own buffers never need a remote right.
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
	// ReadSink: the client's data buffer is where its READ lands, so on
	// iWARP it also gets REMOTE_WRITE (steps/iwarp.go).
	ReadSink bool
	// noIWARP is why the tour cannot run on an iWARP device (empty: it
	// can); the step that first knows the device refuses with it.
	noIWARP text.Text
	// noWorkshop is why a workshop room cannot serve this tour (empty:
	// it can).
	noWorkshop text.Text
	// summary is the result sentence built from a Result's fields, for a
	// tour whose steps do not write Result.Summary themselves or a
	// recording made before they did (nil: Summary is always set).
	summary func(r *Result) text.Text
	// validate refuses what this tour cannot do with cfg (nil: nothing
	// beyond the common checks).
	validate func(cfg Config) error
	// tools are the rdma-core and perftest commands that do what the
	// tour does (tools.go).
	tools func(a ToolArgs) []ToolCommand
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
func (r *Result) Sentence() text.Text {
	if r.Summary.EN != "" {
		return r.Summary
	}
	if d, ok := TourOf(r.Tour); ok && d.summary != nil {
		return d.summary(r)
	}
	return text.Text{}
}

// Workshop is nil when a workshop room can serve the tour, else a
// ConfigError saying why not.
func (d TourDef) Workshop() error {
	if d.noWorkshop.EN == "" {
		return nil
	}
	return configError(text.Text{EN: d.noWorkshop.EN, ZH: d.noWorkshop.ZH})
}

// dataAccess is what role's data buffer is registered with: the
// server's DataAccess; the client's buffer is only ever the local end of
// its own WRITE, READ or atomic, so LOCAL_WRITE (a READ's data and an
// atomic's old value land in it).
func (d TourDef) dataAccess(role Role) verbs.Access {
	if role == Server {
		return d.DataAccess
	}
	return verbs.AccessLocalWrite
}

// doorbellAccess is what role's doorbell is registered with: on the
// server of a tour that Notifies, the client's doorbell WRITE lands in
// it (REMOTE_WRITE, whatever --notify the client chose: the server does
// not know it before it registers); everywhere else it is local only.
func (d TourDef) doorbellAccess(role Role) verbs.Access {
	if role == Server && d.Notifies {
		return verbs.AccessLocalWrite | verbs.AccessRemoteWrite
	}
	return verbs.AccessLocalWrite
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

// baseTour is the tour cfg's side runs on its track before any lesson:
// the base a lesson changes.
func baseTour(cfg Config) []Step {
	d, ok := TourOf(cfg.Tour)
	if !ok {
		return nil // Validate refused it
	}
	return withCompletion(cfg, d.build(cfg.Role, cfg.Notify, cfg.Track))
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
	for _, tr := range rcTracks() {
		for _, d := range Tours() {
			for _, role := range []Role{Server, Client} {
				for _, n := range []Notify{NotifySend, NotifyDoorbell, NotifyImm} {
					add(withCompletion(Config{Role: role, Completion: CompletionEvent}, d.build(role, n, tr.track)))
				}
			}
		}
	}
	for _, l := range Lessons() {
		for _, role := range []Role{Server, Client} {
			for _, rnr := range []uint8{0, MaxRNRRetry} {
				cfg := Config{Role: role, Notify: l.Notify, Tour: l.Tour, Track: l.Track, RNRRetry: rnr}
				tour, _ := l.apply(cfg, baseTour(cfg)) // TestEveryLessonOnEveryTour checks the error
				add(tour)
			}
		}
	}
	return ids
}
