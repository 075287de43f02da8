package steps

import (
	"bytes"
	"context"
	"errors"

	"github.com/rdmatour/rdmatour/text"
)

// History: the Session keeps the snapshot taken right after every finished
// step (succeeded or failed), so a UI can show any earlier step as it was
// and --record can write it.
//
// Memory: a history snapshot shares what cannot change. The timeline,
// the completions and the packets are append-only in the Session (the
// packet list is trimmed by copying into a new array, never in place), so
// each history snapshot holds a capped slice of the Session's own array
// instead of a copy; and a data buffer (4 KiB plus a timestamp per byte)
// that did not change since the previous step is the previous step's.
// Nothing reachable from a history snapshot is ever written again.

// Recorder is told every finished step and the teardown, in order, from
// the goroutine that ran them (--record; in a linked demo a step is told
// when the next step of either side starts, from that goroutine). It must not block for long and
// must not call back into the Session; it keeps its own errors (a full
// disk must not end a tour) for its owner to report.
type Recorder interface {
	// Step is called once per finished step, after its snapshot was taken.
	Step(StepRecord)
	// Teardown is called once, by Close: the C calls it made (one per
	// line), its first error, and the state after it.
	Teardown(calls string, err error, final Snapshot)
}

// StepRecord is one finished step as a Recorder sees it.
type StepRecord struct {
	Index int
	ID    string
	// Outcome is what RunNext returned.
	Outcome Outcome
	// Err is RunNext's error (nil: the step succeeded, or failed the way
	// the lesson expected).
	Err error
	// Snapshot is the state right after the step.
	Snapshot Snapshot
	// Peer is the other side's state right after the step, in a linked
	// demo (LinkDemo); nil otherwise.
	Peer *Snapshot
	// Shown is the C the step showed before it ran when it was edited
	// (editpreview.go); "" when it showed its tour's Call.
	Shown string
}

// StepSnapshot returns the state as it was right after step i finished;
// ok is false when step i has not finished (yet). The snapshot shares
// immutable data with the Session and with other steps' snapshots: it must
// be treated as read-only, as every Snapshot is.
func (s *Session) StepSnapshot(i int) (snap Snapshot, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 || i >= len(s.history) || s.history[i] == nil {
		return Snapshot{}, false
	}
	return *s.history[i], true
}

// keepSnapshot stores the snapshot after step idx. RunNext defers it with
// s.mu held, so whoever sees the step finished (Next, Done) also finds
// its snapshot.
func (s *Session) keepSnapshot(idx int) {
	snap := s.historySnapshot()
	s.countersEnd, s.countersEndPerQP = snap.Counters, snap.CountersPerQP
	if s.history == nil {
		s.history = make([]*Snapshot, len(s.tour))
	}
	s.history[idx] = &snap
}

// recordStep tells the recorder of step idx. RunNext defers it: it runs
// with runMu held and mu free.
//
// In a linked demo the step is only pending: its line is written, with
// the peer's state, when it is sealed (demohistory.go).
func (s *Session) recordStep(idx int, out Outcome, err error) {
	_, link := s.linked()
	if s.cfg.Recorder == nil && link == nil {
		return
	}
	snap, _ := s.StepSnapshot(idx)
	rec := StepRecord{Index: idx, ID: string(s.tour[idx].ID), Outcome: out, Err: err, Snapshot: snap}
	s.mu.Lock()
	rec.Shown = s.previews[s.tour[idx].ID]
	s.mu.Unlock()
	if link != nil {
		link.finished(s, rec)
		return
	}
	s.cfg.Recorder.Step(rec)
}

// recordEnd tells the recorder of the teardown, on the first Close (the
// tour's last step may already have freed everything: calls is then "").
func (s *Session) recordEnd(calls string, err error) {
	s.mu.Lock()
	first := !s.endRecorded
	s.endRecorded = true
	s.mu.Unlock()
	if r := s.cfg.Recorder; r != nil && first {
		r.Teardown(calls, err, s.Snapshot())
	}
}

// historySnapshot is a snapshot for keeping (see the memory note above).
// Called with s.mu held.
func (s *Session) historySnapshot() Snapshot {
	snap := s.snapshotLocked()
	if !s.closed {
		snap.Timeline = s.timeline[:len(s.timeline):len(s.timeline)]
		snap.Packets = s.packets[:len(s.packets):len(s.packets)]
		if snap.CQ != nil {
			snap.CQ.Completions = s.completions[:len(s.completions):len(s.completions)]
		}
	}
	if prev := s.lastKept(); prev != nil && sameBuffer(prev.Data, snap.Data) {
		snap.Data = prev.Data
	}
	return snap
}

// lastKept is the most recent history snapshot, nil before the first.
func (s *Session) lastKept() *Snapshot {
	for i := len(s.history) - 1; i >= 0; i-- {
		if s.history[i] != nil {
			return s.history[i]
		}
	}
	return nil
}

func sameBuffer(a, b BufferState) bool {
	return bytes.Equal(a.Bytes, b.Bytes) && a.SameChanges(b)
}

// RecordedError is an error as a recording kept it: its message and its
// learner-facing explanation in both languages (ExplainIn's output), so a
// replay explains it with the same words without the original error value.
type RecordedError struct {
	Msg     string
	Explain text.Text
	// Canceled says the original was context.Canceled (the learner
	// quit or pressed Ctrl-C): the replay's exit status says so too.
	Canceled bool
}

func (e *RecordedError) Error() string { return e.Msg }

// Unwrap makes errors.Is(err, context.Canceled) hold as it did live.
func (e *RecordedError) Unwrap() error {
	if e.Canceled {
		return context.Canceled
	}
	return nil
}

// Record turns a live error into a RecordedError (nil stays nil).
func Record(err error) *RecordedError {
	if err == nil {
		return nil
	}
	var re *RecordedError
	if errors.As(err, &re) {
		return re
	}
	return &RecordedError{Msg: err.Error(), Explain: text.Text{EN: ExplainIn(err, text.EN), ZH: ExplainIn(err, text.ZH)},
		Canceled: errors.Is(err, context.Canceled)}
}

// Replayed is e as a replay returns it: ExplainIn gives the recorded
// explanation word for word.
func (e *RecordedError) Replayed() error {
	return &Problem{What: e.Explain, Err: e, quiet: true}
}
