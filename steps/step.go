// Package steps is the tour: one Step per keypress, each making one real
// verbs/rdma_cm call on a Session that owns every resource of one side.
// It knows nothing about terminals; the TUI and the plain runner both drive
// it through Session.RunNext and render Session.Snapshot.
package steps

import (
	"context"
	"fmt"
	"strings"
)

// Role is the side of the connection a session plays.
type Role int

const (
	Server Role = iota
	Client
)

func (r Role) String() string {
	if r == Client {
		return "client"
	}
	return "server"
}

// Notify is how the client tells the server its RDMA WRITE has landed.
type Notify int

const (
	// NotifySend: a two-sided SEND "RDMA_WRITE_DONE" into the server's
	// posted RECV.
	NotifySend Notify = iota
	// NotifyDoorbell: a second one-sided RDMA WRITE of a big-endian 1 into
	// the server's doorbell flag, which the server CPU polls.
	NotifyDoorbell
	// NotifyImm: the data itself is written with RDMA_WRITE_WITH_IMM, which
	// consumes the server's posted RECV and raises a completion there.
	NotifyImm
)

func (n Notify) String() string {
	switch n {
	case NotifyDoorbell:
		return "doorbell"
	case NotifyImm:
		return "imm"
	}
	return "send"
}

// ParseNotify parses "send", "doorbell" or "imm".
func ParseNotify(s string) (Notify, error) {
	switch strings.ToLower(s) {
	case "send":
		return NotifySend, nil
	case "doorbell":
		return NotifyDoorbell, nil
	case "imm":
		return NotifyImm, nil
	}
	return 0, fmt.Errorf("unknown notify mode %q: use send, doorbell or imm", s)
}

// Text is a piece of user-facing text in both languages.
type Text struct{ EN, ZH string }

// In returns the text in lang ("zh" or anything else for English).
func (t Text) In(lang string) string {
	if lang == "zh" && t.ZH != "" {
		return t.ZH
	}
	return t.EN
}

// Outcome is what one step did.
type Outcome struct {
	// Call is the C the step executed, with the actual values, one call per
	// line ("ibv_reg_mr(pd, 0x7f.., 4096, IBV_ACCESS_LOCAL_WRITE | ...) = mr{lkey=0x1234 ...}").
	Call string
	// Results are the named values the call produced, in order.
	Results []KV
	// Note says in words what happened.
	Note Text
	// Failure explains the error the step ended with, if any.
	Failure Text
	// Expected says the failure is the point of the lesson being run.
	Expected bool
}

// KV is one named result.
type KV struct{ Name, Value string }

// Step is one keypress of the tour.
type Step struct {
	// ID names the explanation pages docs/en/<ID>.md and docs/zh/<ID>.md.
	ID    string
	Side  Role
	Title Text
	// Call is the C call in its generic form, shown before the step runs.
	Call string
	// Waits says the step blocks on the peer or the network (spinner).
	Waits bool
	// After names steps of the other side that must have run before this
	// one can complete; DemoPlan orders the two sides by it. IDs the other
	// tour does not have are ignored.
	After []string
	// Expect is set in lessons: the error this step should end with.
	Expect *Expect
	// Section is the part of the live state the step creates or changes.
	Section Section
	run     func(ctx context.Context, s *Session) (Outcome, error)
}
