package record

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rdmatour/rdmatour/steps"
)

// Writer writes a recording as the tour runs. Make one per file, give
// each side's steps.Config the Recorder that Side returns, call Begin
// with the sessions before the first step, and Err at the end. It is safe
// for the demo's two sessions at once.
type Writer struct {
	mu      sync.Mutex
	out     io.Writer
	version string // rdmatour's
	command string
	begun   bool
	err     error // the first write error; later lines are dropped
	sides   map[steps.Role]*sideWriter
}

// NewWriter writes to out; version is rdmatour's, command "server",
// "client" or "demo".
func NewWriter(out io.Writer, version, command string) *Writer {
	return &Writer{out: out, version: version, command: command, sides: map[steps.Role]*sideWriter{}}
}

// errNotBegun is a step reported before Begin wrote the header.
var errNotBegun = errors.New("record: a step finished before the header was written")

// Side returns the steps.Recorder for one side.
func (w *Writer) Side(role steps.Role) steps.Recorder {
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := &sideWriter{w: w, role: role}
	w.sides[role] = sw
	return sw
}

// Begin writes the header for the sessions (server first in the demo).
// devices are the names of the RDMA devices the backend sees.
func (w *Writer) Begin(devices []string, sessions ...steps.Runner) error {
	h := Header{Format: Format, Version: Version, Rdmatour: w.version, Command: w.command}
	for _, s := range sessions {
		h.Sides = append(h.Sides, sideHeader(s, devices))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.begun = true
	w.write(h)
	return w.err
}

func sideHeader(s steps.Runner, devices []string) SideHeader {
	cfg, snap := s.Config(), s.Snapshot()
	sh := SideHeader{Role: cfg.Role.String(), Notify: cfg.Notify.String(), Track: cfg.Track.String(),
		Lesson: cfg.LessonName(), Edits: cfg.Edits.Strings(), Backend: snap.Backend, Devices: devices,
		Initial: encodeSnapshot(snap)}
	sh.Message, sh.MessageBytes = encodeMessage(cfg.Message)
	if cfg.Bind.IsValid() {
		sh.Bind = cfg.Bind.String()
	}
	if cfg.Server.IsValid() {
		sh.Server = cfg.Server.String()
	}
	sh.Tour = encodeTour(steps.Plan(s.Steps()))
	return sh
}

// Err is the first error writing the file (nil if every line was
// written).
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// write marshals v as one line. Called with w.mu held.
func (w *Writer) write(v any) {
	if w.err != nil {
		return
	}
	if !w.begun {
		w.err = errNotBegun
		return
	}
	b, err := marshalLine(v)
	if err == nil {
		_, err = w.out.Write(b)
	}
	if err != nil {
		w.err = fmt.Errorf("record: %w", err)
	}
}

// sideWriter is one side's steps.Recorder: it remembers what it wrote so
// the timeline and the packets go out as deltas.
type sideWriter struct {
	w         *Writer
	role      steps.Role
	timelineN int    // timeline entries written so far
	lastSeq   uint64 // the newest packet written
	anyPacket bool   // lastSeq is set
}

// Step implements steps.Recorder.
func (sw *sideWriter) Step(r steps.StepRecord) {
	line := stepLine{Kind: kindStep, Side: sw.role.String(), Index: r.Index, ID: r.ID,
		Outcome: encodeOutcome(r.Outcome), Error: encodeError(r.Err)}
	if r.Peer != nil {
		peer := encodeSnapshot(*r.Peer)
		line.Peer = &peer
	}
	line.Shown = r.Shown
	sw.w.mu.Lock()
	defer sw.w.mu.Unlock()
	line.stateJSON = sw.state(r.Snapshot)
	sw.w.write(line)
}

// Teardown implements steps.Recorder.
func (sw *sideWriter) Teardown(calls string, err error, final steps.Snapshot) {
	line := endLine{Kind: kindEnd, Side: sw.role.String(), Teardown: calls, Error: encodeError(err)}
	sw.w.mu.Lock()
	defer sw.w.mu.Unlock()
	line.stateJSON = sw.state(final)
	sw.w.write(line)
}

// state is snap with the timeline and packets new since the last line.
// Called with w.mu held.
func (sw *sideWriter) state(snap steps.Snapshot) stateJSON {
	st := stateJSON{Snapshot: encodeSnapshot(snap), PacketsShown: len(snap.Packets)}
	if len(snap.Timeline) > sw.timelineN {
		st.Timeline = snap.Timeline[sw.timelineN:]
		sw.timelineN = len(snap.Timeline)
	}
	for _, p := range snap.Packets {
		if !sw.anyPacket || p.Seq > sw.lastSeq {
			st.Packets = append(st.Packets, p)
			sw.lastSeq, sw.anyPacket = p.Seq, true
		}
	}
	return st
}

// Encode writes rec as a file: the header, then each side's steps and end
// line (side by side, not interleaved as a live demo writes them; the
// reader accepts either).
func Encode(out io.Writer, rec *Recording) error {
	if len(rec.Header.Sides) != len(rec.Sides) {
		return fmt.Errorf("record: the header describes %d sides, the recording has %d", len(rec.Header.Sides), len(rec.Sides))
	}
	w := &Writer{out: out, begun: true}
	w.write(rec.Header)
	for _, side := range rec.Sides {
		sw := &sideWriter{w: w, role: side.Config.Role}
		for i, p := range side.Steps {
			var err error
			if p.Err != nil {
				err = p.Err
			}
			sw.Step(steps.StepRecord{Index: i, ID: string(p.ID), Outcome: p.Outcome, Err: err, Snapshot: p.Snapshot, Peer: p.Peer, Shown: p.Shown})
		}
		var err error
		if side.TeardownErr != nil {
			err = side.TeardownErr
		}
		sw.Teardown(side.Teardown, err, side.Final)
	}
	return w.err
}
