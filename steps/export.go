package steps

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/verbs"
)

// ExportOptions choose the tour export-c writes as a C program.
type ExportOptions struct {
	Role   Role
	Notify Notify
	Track  Track
	// Lesson is the lesson the program makes the mistake of (nil: none).
	Lesson *Lesson
	// Message is what the client writes ("" = DefaultMessage).
	Message string
	// MessageSize pads the message to this many bytes (Config.MessageSize).
	MessageSize int
	// Tour is which tour (Config.Tour).
	Tour TourKind
}

// ExportC writes the chosen tour as one complete C program: the
// statements of every step, rendered symbolically by the same printer
// that prints them on screen, with every result checked. To get the
// statements it runs the tour, both sides, on the two providers given
// (simulated NICs: cmd picks them), so the program is what the tour did.
func ExportC(ctx context.Context, o ExportOptions, serverNIC, clientNIC verbs.Provider) (string, error) {
	sides, err := runForExport(ctx, o, serverNIC, clientNIC)
	if err != nil {
		return "", err
	}
	return exportProgram(sides[o.Role])
}

// exportProgram is the program of a session whose tour has run.
func exportProgram(s *Session) (string, error) {
	var body strings.Builder
	for i, st := range s.tour {
		out := s.outcomes[i]
		if out == nil {
			return "", fmt.Errorf("export-c: step %s did not run", st.ID)
		}
		fmt.Fprintf(&body, "\n    /* %s: %s */\n", st.ID, comment(st.Title.EN))
		for _, line := range strings.Split(c.Lines(out.C, c.Symbolic), "\n") {
			if line != "" {
				body.WriteString("    " + line + "\n")
			}
		}
	}
	return programC(s.cfg, body.String()), nil
}

// comment keeps text from ending a C comment.
func comment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// runForExport runs both sides of the tour to the end; a lesson's expected
// errors are part of it.
func runForExport(ctx context.Context, o ExportOptions, serverNIC, clientNIC verbs.Provider) (map[Role]*Session, error) {
	const timeout = 10 * time.Second
	srv, err := NewSession(Config{Role: Server, Notify: o.Notify, Track: o.Track, Lesson: o.Lesson, Tour: o.Tour, Provider: serverNIC,
		Bind: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0), Timeout: timeout})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	for srv.Next() < len(srv.tour) {
		st := srv.tour[srv.Next()]
		if _, err := srv.RunNext(ctx); err != nil {
			return nil, fmt.Errorf("export-c: running server step %s: %w", st.ID, err)
		}
		if st.Reaches(MilestoneListening) {
			break
		}
	}
	cli, err := NewSession(Config{Role: Client, Notify: o.Notify, Track: o.Track, Lesson: o.Lesson, Tour: o.Tour, Provider: clientNIC,
		Server: srv.listener.LocalAddr(), Message: o.Message, MessageSize: o.MessageSize, Timeout: timeout})
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	sides := map[Role]*Session{Server: srv, Client: cli}
	for _, turn := range DemoPlan(srv.tour, cli.tour) {
		s := sides[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		if _, err := s.RunNext(ctx); err != nil {
			return nil, fmt.Errorf("export-c: running %s step %s: %w", turn.Side, s.tour[turn.Index].ID, err)
		}
	}
	return sides, nil
}
