package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rdmatour/rdmatour/steps"
)

// body decodes one line after the header.
func (d *decoder) body(line []byte) error {
	var probe struct {
		Kind string `json:"kind"`
		Side string `json:"side"`
	}
	if err := checkText(line); err != nil {
		return err
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return fmt.Errorf("not valid JSON (%v): the file is damaged", err)
	}
	sr := d.side(probe.Side)
	if sr == nil {
		return fmt.Errorf("side %q is not one the header describes", probe.Side)
	}
	if sr.ended {
		return fmt.Errorf("a %q line after the %s side's end line", probe.Kind, probe.Side)
	}
	switch probe.Kind {
	case kindStep:
		var sl stepLine
		if err := json.Unmarshal(line, &sl); err != nil {
			return fmt.Errorf("the step line is damaged: %v", err)
		}
		return sr.step(sl, d.line)
	case kindEnd:
		var el endLine
		if err := json.Unmarshal(line, &el); err != nil {
			return fmt.Errorf("the end line is damaged: %v", err)
		}
		return sr.end(el, d.line)
	}
	return fmt.Errorf("unknown line kind %q (expected %q or %q)", probe.Kind, kindStep, kindEnd)
}

func (d *decoder) side(role string) *sideReader {
	for _, sr := range d.sides {
		if sr.head.Role == role {
			return sr
		}
	}
	return nil
}

// step adds one finished step.
func (sr *sideReader) step(sl stepLine, lineNo int) error {
	n := len(sr.replay.Steps)
	switch {
	case sl.Index != n:
		return fmt.Errorf("step index %d, expected %d (a line is missing or out of order)", sl.Index, n)
	case n > 0 && sr.replay.Steps[n-1].Err != nil:
		return errors.New("a step after the step that failed")
	case n >= len(sr.head.Tour):
		return fmt.Errorf("step %d, but the header lists %d steps", n+1, len(sr.head.Tour))
	case steps.StepID(sl.ID) != sr.head.Tour[n].ID:
		return fmt.Errorf("step %q, but the header's step %d is %q", sl.ID, n+1, sr.head.Tour[n].ID)
	}
	snap, err := sr.state(sl.stateJSON)
	if err != nil {
		return err
	}
	var peer *steps.Snapshot
	if sl.Peer != nil {
		p, err := sl.Peer.decode()
		if err != nil {
			return fmt.Errorf("the peer state: %w", err)
		}
		peer = &p
	}
	out := sl.Outcome.decode()
	sr.replay.Steps = append(sr.replay.Steps, PlayedStep{ID: steps.StepID(sl.ID), Outcome: out, Err: sl.Error.decode(), Snapshot: snap, Peer: peer, Shown: sl.Shown})
	sr.lines = append(sr.lines, lineNo)
	return nil
}

// end is the side's teardown, on line lineNo.
func (sr *sideReader) end(el endLine, lineNo int) error {
	snap, err := sr.state(el.stateJSON)
	if err != nil {
		return err
	}
	sr.replay.Teardown, sr.replay.TeardownErr, sr.replay.Final = el.Teardown, el.Error.decode(), snap
	sr.ended, sr.endLine = true, lineNo
	return nil
}

// cutOff is the line where the side's steps stop short of what its
// header promises, or 0. A side may stop early on its own — it failed, or
// the learner quit — but never after its teardown step: steps recorded
// up to the teardown with the header listing more is a header that does
// not belong to the file, and the replay would play into steps it lacks.
func (sr *sideReader) cutOff() int {
	played, listed := sr.replay.Steps, len(sr.head.Tour)
	n := len(played)
	if n == 0 || n >= listed || played[n-1].Err != nil || played[n-1].ID != steps.IDTeardown {
		return 0
	}
	return sr.endLine
}

// state rebuilds a snapshot: the recorded one, with the timeline and the
// packets accumulated so far. Snapshots share the accumulated arrays
// (capped slices: later appends never show through).
func (sr *sideReader) state(st stateJSON) (steps.Snapshot, error) {
	snap, err := st.Snapshot.decode()
	if err != nil {
		return snap, err
	}
	// An unchanged buffer is the previous snapshot's, as in the live
	// session's history.
	if sameBuffer(sr.lastData, snap.Data) {
		snap.Data = sr.lastData
	}
	sr.lastData = snap.Data
	sr.timeline = append(sr.timeline, st.Timeline...)
	for _, p := range st.Packets {
		if n := len(sr.packets); n > 0 && p.Seq <= sr.packets[n-1].Seq {
			return snap, fmt.Errorf("packet %d comes after packet %d: packets must be in order", p.Seq, sr.packets[n-1].Seq)
		}
		sr.packets = append(sr.packets, p)
	}
	if st.PacketsShown < 0 || st.PacketsShown > len(sr.packets) {
		return snap, fmt.Errorf("the snapshot shows %d packets, but only %d were recorded", st.PacketsShown, len(sr.packets))
	}
	if n := len(sr.timeline); n > 0 {
		snap.Timeline = sr.timeline[:n:n]
	}
	if n := len(sr.packets); st.PacketsShown > 0 {
		snap.Packets = sr.packets[n-st.PacketsShown : n : n]
	}
	return snap, nil
}

// finish checks that the file was complete and that each side replays on
// this rdmatour's tour.
// sameBuffer says two buffers hold the same bytes changed at the same
// times.
func sameBuffer(a, b steps.BufferState) bool {
	return bytes.Equal(a.Bytes, b.Bytes) && (a.Bytes == nil) == (b.Bytes == nil) && a.SameChanges(b)
}

func (d *decoder) finish() (*Recording, error) {
	rec := &Recording{Header: d.head}
	for _, sr := range d.sides {
		if !sr.ended {
			return nil, &LineError{File: d.name, Line: d.line + 1, Reason: fmt.Sprintf(
				"the file ends before the %s side's end line: the recording was cut off (rdmatour killed, or the file truncated)", sr.head.Role)}
		}
		if line := sr.cutOff(); line != 0 {
			return nil, &LineError{File: d.name, Line: line, Reason: fmt.Sprintf(
				"the header lists %d %s steps, but the file holds %d, up to its teardown: the recording is cut off at line %d",
				len(sr.head.Tour), sr.head.Role, len(sr.replay.Steps), line)}
		}
		if _, err := NewPlayer(sr.replay); err != nil {
			return nil, d.replayError(sr, err)
		}
		rec.Sides = append(rec.Sides, sr.replay)
	}
	return rec, nil
}

// replayError places a NewPlayer error on the line it is about.
func (d *decoder) replayError(sr *sideReader, err error) error {
	line := 1
	var re *ReplayError
	if errors.As(err, &re) && re.Step < len(sr.lines) {
		line = sr.lines[re.Step]
	}
	return &LineError{File: d.name, Line: line, Reason: fmt.Sprintf("%s side: %v", sr.head.Role, err)}
}

// Runners returns one Player per side, server first.
func (r *Recording) Runners() ([]steps.Runner, error) {
	var out []steps.Runner
	for _, side := range r.Sides {
		s, err := NewPlayer(side)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
