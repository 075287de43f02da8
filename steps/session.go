package steps

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"strconv"

	c "github.com/rdmatour/rdmatour/steps/cprint"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The seed's constants: wire compatibility depends on them.
const (
	BufSize       = 4096 // data buffer, RDMA WRITE target
	MsgBufSize    = 128  // SEND/RECV control buffers
	DoorbellSize  = 4096 // doorbell buffer (the flag is its first 8 bytes)
	DoorbellValue = 1
	CQDepth       = 16
	DoneText      = "RDMA_WRITE_DONE"
	// Work request ids the seed uses, so completions read the same.
	WRIDRecv     = 100
	WRIDSend     = 200
	WRIDWrite    = 300
	WRIDDoorbell = 400
	WRIDEarly    = 500 // the post-before-connect lesson's premature WRITE
	// ImmValue is what the client puts in imm_data in notify=imm mode.
	ImmValue = 0x1234abcd
	// DefaultPort is rdma_cm's customary port (the seed takes it as argv).
	DefaultPort = 7471
	// ResolveTimeout is the seed's TIMEOUT_MS for resolve_addr/route.
	ResolveTimeout = 2000 * time.Millisecond
)

// DefaultMessage is what the client writes when --message is not given.
const DefaultMessage = "hello from rdmatour client via RDMA WRITE"

// Session owns every resource of one side and runs the tour step by step.
// All methods are safe to call from several goroutines: the TUI snapshots
// while a step runs.
//
// Its state is in parts, each a small type that owns one concern and
// releases what it holds (parts.go). The parts are embedded so the steps
// name their fields directly (s.qp, s.packets); mu guards them all but
// demoSide, which locks itself. mu is never held across a blocking verbs
// call. runMu serialises steps and teardown.
type Session struct {
	cfg  Config
	tour []Step
	// peerPlan is the tour the other side runs (PeerTour, WaitFor);
	// never written after NewSession.
	peerPlan []Step

	runMu sync.Mutex
	mu    sync.Mutex

	progress    // how far the tour has run
	resources   // the verbs objects, in release order
	connection  // the CM connection and what the peer told us
	tourState   // state only one tour's steps use
	lessonRun   // the lesson's question and baselines
	hostHooks   // what a host (the gate, a workshop Room) plugged in
	wireView    // this side's packets and counters
	memTracking // which bytes of the buffers changed, and when
	journal     // what happened: completions, QP states, timeline, history
	demoSide    // the other side of a linked demo
	editState   // the learner's edits (editsession.go)
}

// maxPackets bounds the wire history a session keeps for the wire pane.
const maxPackets = 200

// NewSession checks cfg and prepares the tour; no resource is allocated
// until the first step runs.
func NewSession(cfg Config) (*Session, error) {
	if cfg.Provider == nil {
		return nil, ErrNoProvider
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if l := cfg.Lesson; l != nil {
		cfg.Notify, cfg.Tour, cfg.Track = l.Notify, l.Tour, l.Track
	}
	tour, err := tourFor(cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{
		cfg:      cfg,
		tour:     tour,
		peerPlan: peerTourFor(cfg),
		progress: progress{outcomes: make([]*Outcome, len(tour)), states: make([]RunState, len(tour))},
	}
	edits := cfg.Edits
	if cfg.Lesson != nil {
		preset, err := cfg.Lesson.presetEdits()
		if err != nil {
			return nil, err
		}
		edits = append(preset, edits...) // the learner's own win
	}
	if err := moveTargetMissing(edits, cfg.Role, tour); err != nil {
		return nil, err
	}
	s.edits = edits.forSide(cfg.Role, tour)
	for _, e := range s.edits {
		if err := cfg.memlockRefusal(e); err != nil {
			return nil, err
		}
	}
	if cfg.Lesson != nil {
		s.initPrediction(cfg.Lesson.prediction(cfg))
	}
	s.refreshPreview() // the first step, if it is edited
	return s, nil
}

// tourFor is the tour cfg's side runs (cfg validated, the lesson's notify
// mode already in cfg.Notify), or the step a lesson's edit names that the
// tour lacks.
func tourFor(cfg Config) ([]Step, error) {
	tour := baseTour(cfg)
	if cfg.Lesson == nil {
		return skipSteps(cfg, tour), nil
	}
	edited, err := cfg.Lesson.apply(cfg, tour)
	if err != nil {
		return nil, err
	}
	return markLessonSteps(tour, skipSteps(cfg, edited)), nil
}

// Config returns the session's configuration (with defaults applied).
// Its Edits are the learner's edits in force on this side (Config.Edits
// that apply here and any SetEdit), not a lesson's preset: what a
// recording keeps and Try next offers to restore.
func (s *Session) Config() Config {
	cfg := s.cfg
	cfg.Edits = s.learnerEdits()
	return cfg
}

// Steps returns the tour.
func (s *Session) Steps() []Step {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Step(nil), s.tour...)
	for i := range out {
		out[i].Call = s.shownCall(out[i]) // an edited step shows its edited C
	}
	return out
}

// Next returns the index of the next step (len(Steps()) when finished).
func (s *Session) Next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Done reports whether the tour has ended, and whether it failed.
func (s *Session) Done() (done, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done, s.failed
}

// ErrTourOver is returned by RunNext once the tour has ended.
var ErrTourOver = errors.New("the tour is over")

// RunNext runs the next step. On error the step is marked failed and the
// tour ends; the caller should Close the session (teardown is safe from
// any point).
func (s *Session) RunNext(ctx context.Context) (out Outcome, err error) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	s.sealDemo(true) // the previous step's state ends as this one starts

	s.mu.Lock()
	if s.done || s.closed || s.next >= len(s.tour) {
		s.mu.Unlock()
		return Outcome{}, ErrTourOver
	}
	idx := s.next
	st := s.tour[idx]
	s.running = true
	s.states[idx] = Active
	s.spans = append(s.spans, stepSpan{id: st.ID, waits: st.Waits, start: time.Now()})
	s.mu.Unlock()
	s.markCounters()
	defer func() { s.recordStep(idx, out, err) }() // after mu is released below

	out, err = st.run(ctx, s)
	err = s.explainPeerGone(ctx, err)
	err = s.withMismatch(err, st.Expect.Matches(err))
	out, err = s.judge(st, out, err, s.reveal(st.ID, err))
	if err == nil {
		s.refreshPreviewAt(idx + 1) // the next step's edited C, in the snapshot kept below
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.keepSnapshot(idx) // with mu held, once the step's state is final
	s.spans[len(s.spans)-1].end = time.Now()
	s.sampleLocked(time.Now()) // what the step changed, even without a UI polling
	s.running = false
	s.outcomes[idx] = &out
	if err != nil {
		s.states[idx] = FailedState
		s.failed = true
		s.done = true
		s.lastErr = out.Failure.EN
		errors.As(err, &s.roomPlan) // a room's plan, for a front end that follows it
		return out, fmt.Errorf("step %s: %w", st.ID, err)
	}
	s.states[idx] = Succeeded
	s.next++
	if s.next == len(s.tour) {
		s.done = true
	}
	return out, nil
}

// judge explains the step's error, or says the lesson expected one that
// did not come, and adds verdict (the prediction's) to the note. An error
// that is the lesson's point is an expected outcome, not the tour's end.
func (s *Session) judge(st Step, out Outcome, err error, verdict text.Text) (Outcome, error) {
	if err != nil {
		explain := ExplainIn
		if st.Expect.Matches(err) {
			explain = ExplainWhatIn // the lesson's point: no advice to start again
		}
		out.Failure = text.Text{EN: explain(err, text.EN), ZH: explain(err, text.ZH)}
		verdict = joinNotes(s.peerEditsNote(), verdict) // both sides know (peeredits.go)
		if st.Expect.Matches(err) {
			out.Expected = true
			err = nil
		}
	} else if st.Expect != nil {
		out.Note = s.explainMismatch(text.Text{EN: "This lesson expected " + st.Expect.What.EN + ", but the call succeeded. " + out.Note.EN,
			ZH: "本课预期会出现 " + st.Expect.What.ZH + "，但这次调用成功了。" + out.Note.ZH}, false)
	}
	out.Note = joinNotes(out.Note, verdict)
	return out, err
}

// Close tears down everything still allocated, in reverse order of
// creation. It is safe after any step, after an error, and twice. It
// returns the C calls it made, one per line, and the first error.
func (s *Session) Close() (string, error) {
	// A running step holds runMu; Close must not wait forever behind a
	// blocking wait, so callers cancel the step's context first.
	s.runMu.Lock()
	defer s.runMu.Unlock()
	return s.teardown()
}

func (s *Session) teardown() (string, error) {
	s.sealDemo(false) // before the teardown changes anything
	log := s.teardownC()
	calls := c.Lines(log.calls, c.Actual)
	s.recordEnd(calls, log.err)
	return calls, log.err
}

// teardownC frees what is still allocated and returns the C it ran:
// each part releases what it owns, children before parents (the
// connection's DREQ, the tour's address handle, then the verbs objects).
func (s *Session) teardownC() teardownLog {
	s.stopGate() // before the ids and the channel it reads go
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return teardownLog{}
	}
	s.closed = true
	s.done = true
	if s.dev != nil {
		s.refreshPackets()
	}
	var log teardownLog
	s.connection.hangUp(s.id, &log)
	s.tourState.release(&log)
	s.resources.release(&log)
	return log
}

// addTimeline records a message between the sides.
func (s *Session) addTimeline(fromServer bool, label, detail string) {
	s.addTimelineText(fromServer, label, text.Text{EN: detail})
}

// addTimelineText records a message whose detail has words to translate.
func (s *Session) addTimelineText(fromServer bool, label string, detail text.Text) {
	s.mu.Lock()
	defer s.mu.Unlock()
	label, ok := s.wireLabel(label) // s.dev under s.mu: the sampler adds entries too
	if !ok {
		return
	}
	s.timeline = append(s.timeline, TimelineEntry{Time: time.Now(), FromServer: fromServer, Label: label, Detail: detail.EN, DetailZH: detail.ZH})
}

// sent records a message this side sent; got one it received.
func (s *Session) sent(label, detail string) { s.addTimeline(s.cfg.Role == Server, label, detail) }
func (s *Session) got(label, detail string)  { s.addTimeline(s.cfg.Role != Server, label, detail) }

// gotText records a message received whose detail has words to translate.
func (s *Session) gotText(label string, detail text.Text) {
	s.addTimelineText(s.cfg.Role != Server, label, detail)
}

// sentText records a message sent whose detail has words to translate.
func (s *Session) sentText(label string, detail text.Text) {
	s.addTimelineText(s.cfg.Role == Server, label, detail)
}

func (s *Session) setEvent(ev verbs.CMEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastEvent = ev.Type.String()
	s.eventStatus = ev.Status
}

func (s *Session) addCompletion(wc verbs.WC) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.completions = append(s.completions, wc)
}

// set runs f under the session lock: steps use it to publish resources.
func (s *Session) set(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// releaseAll is the teardown step's outcome: the C that released this
// side's objects (after before, the events it took first), and how many
// of them are still allocated — this side's only, whoever else shares
// the provider.
func (s *Session) releaseAll(note text.Text, before ...c.Stmt) (Outcome, error) {
	log := s.teardownC()
	return withC(Outcome{Results: []KV{result(resLiveObjectsLeft, strconv.Itoa(log.left))}, Note: note},
		append(before, log.calls...)...), log.err
}
