// Package record writes and reads rdmatour recordings (--record FILE,
// rdmatour replay FILE): one tour session per side, as versioned JSON
// lines, so a tour run on a machine with RDMA can be replayed — in the TUI
// with history, or as the plain runner's exact text — on one without.
//
// The file is JSON lines (one JSON object per line, each ending in "\n"):
//
//  1. the header: {"format":"rdmatour-record","version":2,"rdmatour":...,
//     "command":"server"|"client"|"demo","sides":[...]} — one entry per
//     side recorded (two for the demo) with its role, notify mode, track,
//     lesson, backend, devices, addresses, the tour's step IDs and the
//     state before the first step;
//  2. one "step" line per finished step of a side: the C call and results
//     (steps.Outcome), the error if it failed, the state right after it,
//     and the timeline entries and packets new since that side's previous
//     line; in a demo also "peer": the other side's state right after the
//     step (without its timeline and packets), since one side's step
//     changes the other (version 2 on; version 1 files have none);
//  3. one "end" line per side: the teardown's C calls, its error, and the
//     state after it.
//
// Lines are written and flushed as the tour goes, so a file cut off by a
// crash ends without its "end" lines, and the reader says so. The reader
// checks every line (order, indices, sizes) and names the file and line
// of the first problem; it never panics on any input (FuzzDecode).
package record

import (
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// Format and Version identify the file. Version is the one written;
// the reader also reads OldestVersion on (version 1 had no peer states).
const (
	Format        = "rdmatour-record"
	Version       = 2
	OldestVersion = 1
)

// Recording is a decoded file: its header and one replay per side
// (server first).
type Recording struct {
	Header Header
	Sides  []Replay
}

// Header is the file's first line.
type Header struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Rdmatour is the version of the rdmatour that wrote the file.
	Rdmatour string `json:"rdmatour"`
	// Command is "server", "client" or "demo".
	Command string       `json:"command"`
	Sides   []SideHeader `json:"sides"`
}

// SideHeader describes one recorded side.
type SideHeader struct {
	Role   string `json:"role"`
	Notify string `json:"notify"`
	Track  string `json:"track"`
	Lesson string `json:"lesson,omitempty"`
	// Edits are the --edit flags the side ran with (steps.Edit.String).
	Edits   []string `json:"edits,omitempty"`
	Backend string   `json:"backend"`
	// Devices are the RDMA devices the backend saw ("sim0", "rxe0", ...).
	Devices []string `json:"devices,omitempty"`
	// Bind (server) and Server (client) are the addresses as configured.
	Bind   string `json:"bind,omitempty"`
	Server string `json:"server,omitempty"`
	// Message is the --message as text; when it is not plain printable
	// UTF-8 (a control character, bytes that are not UTF-8) it is the
	// escaped form, for the eye only, and MessageBytes holds the bytes
	// exactly (JSON would turn invalid UTF-8 into U+FFFD). The replay
	// uses MessageBytes when present.
	Message      string `json:"message,omitempty"`
	MessageBytes []byte `json:"message_bytes,omitempty"`
	// Tour is the tour's steps, in order, as the screen describes them:
	// a recording replays even where rdmatour's tour has changed since.
	Tour []tourStep `json:"tour"`
	// Initial is the state before the first step.
	Initial snapJSON `json:"initial"`
}

// tourStep is a steps.PlanStep.
type tourStep struct {
	ID      steps.StepID   `json:"id"`
	Title   text.Text      `json:"title"`
	Call    string         `json:"call"`
	Waits   bool           `json:"waits,omitempty"`
	Section steps.Section  `json:"section,omitempty"`
	After   []steps.StepID `json:"after,omitempty"`
	Expect  *text.Text     `json:"expect,omitempty"`
}

func encodeTour(plan []steps.PlanStep) []tourStep {
	out := make([]tourStep, 0, len(plan))
	for _, p := range plan {
		out = append(out, tourStep(p))
	}
	return out
}

func decodeTour(tour []tourStep) []steps.PlanStep {
	out := make([]steps.PlanStep, 0, len(tour))
	for _, t := range tour {
		out = append(out, steps.PlanStep(t))
	}
	return out
}

// Line kinds after the header.
const (
	kindStep = "step"
	kindEnd  = "end"
)

// stepLine is one finished step of one side.
type stepLine struct {
	Kind    string      `json:"kind"`
	Side    string      `json:"side"`
	Index   int         `json:"index"`
	ID      string      `json:"id"`
	Outcome outcomeJSON `json:"outcome"`
	Error   *errorJSON  `json:"error,omitempty"`
	// Peer is the other side's state right after the step (a demo).
	Peer *snapJSON `json:"peer,omitempty"`
	// Shown is the C the step showed before it ran when it was edited
	// (the tour's Call otherwise, left out).
	Shown string `json:"shown,omitempty"`
	stateJSON
}

// endLine is a side's teardown.
type endLine struct {
	Kind     string     `json:"kind"`
	Side     string     `json:"side"`
	Teardown string     `json:"teardown"`
	Error    *errorJSON `json:"error,omitempty"`
	stateJSON
}

// stateJSON is the state after a step or the teardown.
type stateJSON struct {
	Snapshot snapJSON `json:"snapshot"`
	// Timeline holds the entries added since the side's previous line.
	Timeline []steps.TimelineEntry `json:"timeline,omitempty"`
	// Packets holds the packets new since the side's previous line;
	// PacketsShown is how many of the most recent packets the snapshot
	// shows (the session keeps only the last ones).
	Packets      []steps.WirePacket `json:"packets,omitempty"`
	PacketsShown int                `json:"packets_shown,omitempty"`
}

func fmtErr(format string, args ...any) error { return fmt.Errorf(format, args...) }
