// Package export writes a tour as one complete C program (rdmatour
// export-c): the statements every step made, rendered symbolically by
// the same printer that prints them on screen (steps/cprint), inside a
// frame with the seed's constants, helpers and command line.
//
// It works over steps' exported API only: steps.RunPair runs the tour,
// the sessions' snapshots give each step's statements. It may import
// steps, steps/cprint, verbs and the standard library; steps never
// imports it, and it never picks a backend (cmd hands it the providers).
package export

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// Options choose the tour export-c writes as a C program.
type Options struct {
	Role   steps.Role
	Notify steps.Notify
	Track  steps.Track
	// Lesson is the lesson the program makes the mistake of (nil: none).
	Lesson *steps.Lesson
	// Message is what the client writes ("" = steps.DefaultMessage).
	Message string
	// MessageSize pads the message to this many bytes (Config.MessageSize).
	MessageSize int
	// Tour is which tour (Config.Tour).
	Tour steps.TourKind
	// Edits are the learner's changes to the calls (--edit): the program
	// makes the edited calls, each marked /* you: was … */ (a lesson's
	// preset /* lesson NAME: was … */).
	Edits steps.Edits
}

// runTimeout bounds every wait of the export run: both sides run in this
// process, so a wait that lasts is a bug, not a person reading.
const runTimeout = 10 * time.Second

// Config is the configuration both sides of the export run share.
func (o Options) Config() steps.Config {
	return steps.Config{Notify: o.Notify, Track: o.Track, Lesson: o.Lesson, Tour: o.Tour,
		Message: o.Message, MessageSize: o.MessageSize, Timeout: runTimeout, Edits: o.Edits}
}

// Validate turns away, before anything runs, a combination there is no
// tour for: what the tour's catalogue row refuses (the write tour's checks
// are left to the run, which reports them as a *steps.ConfigError), and a
// lesson on the manual track.
func (o Options) Validate() error {
	tour := steps.Config{Tour: o.Tour, Lesson: o.Lesson, Track: o.Track, Message: o.Message}
	if err := tour.Validate(); err != nil && o.Tour != steps.TourWrite {
		return err
	}
	if o.Lesson != nil && o.Track == steps.TrackManual {
		return fmt.Errorf("--track manual and --lesson %s cannot be combined: the lessons run on the cm track", o.Lesson.Name)
	}
	return nil
}

// Program writes the chosen tour as one complete C program, every result
// checked. To get the statements it runs the tour, both sides, on the two
// providers given (simulated NICs: cmd picks them), so the program is
// what the tour did. A bad combination of options is a
// *steps.ConfigError.
//
// With edits, a step may fail (that is the experiment): the program then
// makes the edited calls up to that step, the failing one included,
// and the tour's own calls after it, which it never reaches when run
// (its helpers stop at the first error) but which keep it a whole
// program that compiles.
func Program(ctx context.Context, o Options, serverNIC, clientNIC verbs.Provider) (string, error) {
	sides, err := steps.RunPair(ctx, o.Config(), serverNIC, clientNIC)
	var bad *steps.ConfigError
	if errors.As(err, &bad) {
		return "", err
	}
	if err != nil && len(o.Edits) == 0 {
		return "", fmt.Errorf("export-c: %w", err)
	}
	edited := sides[o.Role]
	if err == nil {
		return sessionProgram(edited, nil)
	}
	plain := o
	plain.Edits = nil
	rest, perr := steps.RunPair(ctx, plain.Config(), serverNIC, clientNIC)
	if perr != nil {
		return "", fmt.Errorf("export-c: %w", perr)
	}
	if edited == nil {
		return sessionProgram(rest[o.Role], nil)
	}
	return sessionProgram(edited, rest[o.Role])
}

// sessionProgram is the program of a session whose tour has run; a step
// it did not run comes from rest, the same tour run without the edits.
func sessionProgram(s, rest *steps.Session) (string, error) {
	var body strings.Builder
	snap := s.Snapshot()
	var restSnap steps.Snapshot
	if rest != nil {
		restSnap = rest.Snapshot()
	}
	for i, st := range s.Steps() {
		out := snap.Steps[i].Outcome
		if out == nil && rest != nil && i < len(restSnap.Steps) {
			out = restSnap.Steps[i].Outcome
		}
		if out == nil {
			return "", fmt.Errorf("export-c: step %s did not run", st.ID)
		}
		fmt.Fprintf(&body, "\n    /* %s: %s */\n", st.ID, Comment(st.Title.EN))
		for _, line := range strings.Split(c.Lines(out.C, c.Symbolic), "\n") {
			if line != "" {
				body.WriteString("    " + line + "\n")
			}
		}
	}
	return programC(s.Config(), body.String()), nil
}

// Comment keeps text from ending the C comment it is put in.
func Comment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }
