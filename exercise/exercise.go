// Package exercise is rdmatour's exercises: small C programs, one side of
// a tour, that the learner fixes or completes (`rdmatour exercise`). A
// fix-the-bug program is the exported tour with a lesson's mistake in it
// (wrong rkey, no REMOTE_WRITE, no RECV before the SEND, …); a fill-in
// program has a TODO where a call or a struct must be written, and fails
// at run time until it is. The reference solution is the exported tour.
//
// The catalogue (catalogue.go) is declared once; each exercise has a page
// docs/{en,zh}/exercise-NAME.md whose Hints section holds its three hints.
// The programs come from export.Program, run on the providers cmd hands
// in (simulated NICs): this package never picks a backend.
//
// It may import export, steps, docs, text, verbs and the standard library.
package exercise

import (
	"context"
	"fmt"
	"strings"

	"github.com/rdmatour/rdmatour/export"
	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// Kind is what the learner does to the program.
type Kind int

const (
	// FixTheBug: the program has one mistake; find it and fix it.
	FixTheBug Kind = iota
	// FillIn: the program has a TODO where a call or a struct goes.
	FillIn
)

// Words is the kind as the list and the pages say it.
func (k Kind) Words() text.Text {
	if k == FillIn {
		return text.Text{EN: "fill in", ZH: "补全"}
	}
	return text.Text{EN: "fix the bug", ZH: "找错"}
}

// Exercise is one program to fix or complete.
type Exercise struct {
	Name  string
	Kind  Kind
	Title text.Text
	// Role is the side the learner's program plays; rdmatour plays the
	// other.
	Role   steps.Role
	Tour   steps.TourKind
	Track  steps.Track
	Notify steps.Notify
	// Lesson is the lesson whose mistake a fix-the-bug program makes ("":
	// a mistake no lesson shows).
	Lesson string
	// Solution turns the exported tour into the reference solution (most
	// exercises: no change); Task turns the solution into the learner's
	// program.
	Solution, Task []Edit
}

// Edit replaces the one occurrence of From with To.
type Edit struct{ From, To string }

// Page is the ID of the exercise's page (docs/{en,zh}/PAGE.md).
func (e Exercise) Page() string { return PagePrefix + e.Name }

// PagePrefix starts the page ID of every exercise page.
const PagePrefix = "exercise-"

// FileName is the learner's program's file name.
func (e Exercise) FileName() string { return e.Name + ".c" }

// SolutionFileName is the reference solution's file name, beside it.
func (e Exercise) SolutionFileName() string { return e.Name + ".solution.c" }

// Options are the export-c options of the exercise's tour (no lesson:
// the mistake is the exercise's edit).
func (e Exercise) Options() export.Options {
	return export.Options{Role: e.Role, Tour: e.Tour, Track: e.Track, Notify: e.Notify}
}

// Find returns the exercise called name.
func Find(name string) (Exercise, error) {
	for _, e := range Catalogue() {
		if e.Name == name {
			return e, nil
		}
	}
	return Exercise{}, &UnknownError{Name: name}
}

// Names are the exercises' names, in order.
func Names() []string {
	var names []string
	for _, e := range Catalogue() {
		names = append(names, e.Name)
	}
	return names
}

// UnknownError is a name that is no exercise.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no exercise called %q; the exercises are: %s (rdmatour exercise list)", e.Name, strings.Join(Names(), ", "))
}

// EditError is an edit whose From is not once in the program: the
// exported tour changed under the catalogue.
type EditError struct {
	Exercise, From string
	Found          int
}

func (e *EditError) Error() string {
	return fmt.Sprintf("exercise %s: the exported program has %d copies of %q, not one: the catalogue no longer matches export-c", e.Exercise, e.Found, e.From)
}

// Programs are an exercise's two C files.
type Programs struct{ Learner, Solution string }

// Programs writes the exercise's programs: the tour exported on the two
// providers given (simulated NICs), the solution's edits, then the
// task's edits, each under the exercise's header.
func (e Exercise) Programs(ctx context.Context, serverNIC, clientNIC verbs.Provider) (Programs, error) {
	exported, err := export.Program(ctx, e.Options(), serverNIC, clientNIC)
	if err != nil {
		return Programs{}, err
	}
	body, err := e.apply(withoutHeader(exported), []Edit{lineBuffered})
	if err != nil {
		return Programs{}, err
	}
	solution, err := e.apply(body, e.Solution)
	if err != nil {
		return Programs{}, err
	}
	learner, err := e.apply(solution, e.Task)
	if err != nil {
		return Programs{}, err
	}
	return Programs{Learner: e.header(false) + learner, Solution: e.header(true) + solution}, nil
}

func (e Exercise) apply(src string, edits []Edit) (string, error) {
	for _, ed := range edits {
		if n := strings.Count(src, ed.From); n != 1 {
			return "", &EditError{Exercise: e.Name, From: ed.From, Found: n}
		}
		src = strings.Replace(src, ed.From, ed.To, 1)
	}
	return src, nil
}

// lineBuffered makes the program's output line-buffered even into a
// pipe: check reads "[server] listening" as it is printed, to know when
// rdmatour's client may connect.
var lineBuffered = Edit{From: "int main(int argc, char **argv)\n{\n",
	To: "int main(int argc, char **argv)\n{\n    setvbuf(stdout, NULL, _IOLBF, 0); /* each line as it is printed, into a pipe too */\n"}

// withoutHeader drops export-c's header comment: the exercise writes its
// own, naming its files.
func withoutHeader(prog string) string {
	if i := strings.Index(prog, " */\n"); strings.HasPrefix(prog, "/*\n") && i >= 0 {
		return prog[i+len(" */\n"):]
	}
	return prog
}

// replaceIn is s with its one old replaced by new (catalogue helper).
func replaceIn(s, old, new string) string { return strings.Replace(s, old, new, 1) }
