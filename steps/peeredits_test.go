package steps_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// Both sides know: the server's edit, made before it accepts, crosses in
// its hello and the client's screen names it when the hello arrives; a
// client's edit made before it connects reaches the server the same way.
// The tour with no edits says nothing of them.
func TestPeerToldOfEdits(t *testing.T) {
	tests := []struct {
		name     string
		srvEdits []string
		cliEdits []string
		// side that must be told, the step whose note tells it, the words
		side steps.Role
		at   string
		want string
	}{
		{"server's access", []string{"reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_WRITE|IBV_ACCESS_REMOTE_READ"}, nil,
			steps.Client, "get-established", "The server runs with edits of its own: reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE|IBV_ACCESS_REMOTE_WRITE|IBV_ACCESS_REMOTE_READ."},
		{"client's depth", nil, []string{"connect.initiator_depth=1"},
			steps.Server, "get-connect-request", "The client runs with edits of its own: connect.initiator_depth=1."},
		{"no edits", nil, nil, steps.Client, "get-established", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := steps.ParseEdits(tt.srvEdits)
			if err != nil {
				t.Fatal(err)
			}
			cli, err := steps.ParseEdits(tt.cliEdits)
			if err != nil {
				t.Fatal(err)
			}
			p := newPairOfEach(t, steps.Config{Notify: steps.NotifySend, Message: "m", Edits: srv}, steps.Config{Notify: steps.NotifySend, Message: "m", Edits: cli})
			p.runTurns(t, -1)
			s := p.sessions[tt.side]
			note := noteOf(s, tt.at)
			if tt.want == "" {
				if strings.Contains(note, "edits of its own") {
					t.Errorf("%s at %s with no edits: %q", tt.side, tt.at, note)
				}
				return
			}
			if !strings.Contains(note, tt.want) {
				t.Errorf("%s's note at %s = %q, want it to say %q", tt.side, tt.at, note, tt.want)
			}
			if got := s.PeerInfo().Edits; len(got) != 1 {
				t.Errorf("PeerInfo().Edits = %q", got)
			}
		})
	}
}

// When the consequence arrives: the server registered its buffer without
// REMOTE_WRITE; the client's WRITE completes with a remote access error,
// and that failed step's note says what the server changed.
func TestPeerEditNamedWhereItBites(t *testing.T) {
	srv, err := steps.ParseEdits([]string{"reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE"})
	if err != nil {
		t.Fatal(err)
	}
	p := newPairOfEach(t, steps.Config{Notify: steps.NotifySend, Message: "m", Edits: srv}, steps.Config{Notify: steps.NotifySend, Message: "m"})
	failed := runUntilFailure(p)
	if failed == "" {
		t.Fatal("the tour ran through with the server's buffer not remotely writable")
	}
	var at steps.StepStatus
	for _, st := range p.cli.Snapshot().Steps {
		if st.ID == failed {
			at = st
		}
	}
	if at.Outcome == nil || !strings.Contains(at.Outcome.Failure.EN, "REM_ACCESS") && !strings.Contains(at.Outcome.Failure.EN, "remote access") {
		t.Fatalf("client failed at %s with %+v, want a remote access error", failed, at.Outcome)
	}
	want := "The server changed reg-mr-data.access=IBV_ACCESS_LOCAL_WRITE before this"
	if !strings.Contains(at.Outcome.Note.EN, want) {
		t.Errorf("note of %s = %q, want it to say %q", failed, at.Outcome.Note.EN, want)
	}
}

// runUntilFailure runs the demo plan until a client step fails; it
// returns that step's ID ("" when none failed).
func runUntilFailure(p *pair) string {
	for _, turn := range p.plan {
		s := p.sessions[turn.Side]
		if s.Next() > turn.Index {
			continue
		}
		id := s.Steps()[turn.Index].ID
		if _, err := s.RunNext(context.Background()); err != nil {
			if turn.Side == steps.Client {
				return string(id)
			}
			return ""
		}
	}
	return ""
}

// A lesson's preset is not announced as the learner's: the hello names
// the lesson already; a learner's edit on top of it is.
func TestLessonPresetNotAnnounced(t *testing.T) {
	own, err := steps.ParseEdits([]string{"accept.rnr_retry_count=3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		edits steps.Edits
		want  string
	}{{nil, ""}, {own, "accept.rnr_retry_count=3"}} {
		cfg := steps.Config{Notify: steps.NotifySend, Message: "m", Lesson: lessonNamed("no-remote-write")}
		srv := cfg
		srv.Edits = tt.edits
		p := newPairOfEach(t, srv, cfg)
		if got := p.srv.Config().Edits.Strings(); len(got) != len(tt.edits) {
			t.Errorf("Config().Edits = %q, want %q", got, tt.edits.Strings())
		}
		runUntilFailure(p)
		got := p.cli.PeerInfo().Edits
		if tt.want == "" && len(got) != 0 || tt.want != "" && (len(got) != 1 || got[0] != tt.want) {
			t.Errorf("with %q the client was told %q, want %q", tt.edits.Strings(), got, tt.want)
		}
	}
}
