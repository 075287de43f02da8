package steps

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	c "github.com/rdmatour/rdmatour/steps/cprint"
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
type Session struct {
	cfg  Config
	tour []Step
	// peerPlan is the tour the other side runs (PeerTour, WaitFor);
	// never written after NewSession.
	peerPlan []Step

	// runMu serialises steps and teardown; mu guards the fields below and
	// is never held across a blocking verbs call.
	runMu sync.Mutex
	mu    sync.Mutex

	next     int
	running  bool
	done     bool
	failed   bool
	lastErr  string
	outcomes []*Outcome
	states   []RunState

	ec       verbs.EventChannel
	listener verbs.CMID
	id       verbs.CMID
	dev      verbs.Device
	pd       verbs.PD
	cq       verbs.CQ
	qp       verbs.QP
	manualQP bool // qp came from ibv_create_qp: teardown uses ibv_destroy_qp
	mrData   verbs.MR
	mrDoor   verbs.MR
	mrRecv   verbs.MR
	mrSend   verbs.MR

	// events is where the steps read CM events when something else owns
	// the channel (the one-client server's gate, a workshop Room); nil
	// means they read ec themselves. See room_events.go.
	events *EventQueue
	gate   *gate
	// onTurnAway hears of every client the gate turns away (OnTurnAway).
	onTurnAway func(who, reason string)
	// sharedPD says pd is a workshop Room's: teardown leaves it.
	sharedPD bool
	// sharedCounter, in an atomic workshop room, is the room's counter:
	// the accept hands it out instead of mrData (room_counter.go).
	sharedCounter verbs.MR
	// wireFilter, when set, keeps only this connection's packets of a
	// device other connections share (a workshop); called with mu held.
	wireFilter func(verbs.Packet) bool

	connected    bool
	disconnected bool // rdma_disconnect called, or the peer's DREQ seen
	peerDREQ     bool // the peer hung up (DISCONNECTED) before we did
	lastEvent    string
	eventStatus  int
	remote       *RemoteState
	peerTour     PeerInfo
	pred         *Prediction     // the lesson's question for this side (nil: none)
	predState    PredictionState // the learner's pick and what happened
	rnrBaseline  uint64          // RNR NAKs the device had sent at rdma_accept
	rnrCounted   bool            // the device counts them (see rnrwait.go)
	// RNR NAKs received when the SEND was posted (timelinefate.go).
	sendRNRBase    uint64
	sendRNRCounted bool
	ud             udState // the ud tour's destination and address handle
	completions    []verbs.WC
	qpHistory      []verbs.QPState
	timeline       []TimelineEntry
	result         *Result
	atomicOld      uint64 // the atomic tour: the counter FETCH_AND_ADD found
	closed         bool

	// Snapshot's change tracking.
	prevData     []byte
	changedAt    []time.Time
	prevDoorbell uint64
	doorbellAt   time.Time
	countersAt   map[string]uint64 // counters before the current step
	// countersAtPerQP says countersAt are the QP's own (see readCounters).
	countersAtPerQP bool
	// wireQP and wireDest are this side's QP and its peer's, remembered
	// past teardown; qpCounters are wireQP's last counters (see wireside.go).
	wireQP, wireDest uint32
	qpCounters       map[string]uint64
	// sawWire: this side's transport packets can be seen (see noteLanding).
	sawWire       bool
	counterDelta  map[string]uint64
	lastPacketSeq uint64
	packets       []WirePacket
	oneHost       *bool      // the peer is this machine (see peerIsLocal)
	spans         []stepSpan // when each step ran: which step a packet belongs to

	// history is the snapshot after each finished step (history.go).
	history []*Snapshot
	// peer is the other side of a linked demo, link what both share, and
	// peerHistory the peer's state after each of this session's steps
	// (demohistory.go).
	peer        *Session
	link        *demoLink
	peerHistory []*Snapshot
	// endRecorded: the Recorder was told of the teardown (once).
	endRecorded bool
}

// maxPackets bounds the wire history a session keeps for the wire pane.
const maxPackets = 200

// NewSession checks cfg and prepares the tour; no resource is allocated
// until the first step runs.
func NewSession(cfg Config) (*Session, error) {
	if cfg.Provider == nil {
		return nil, errNoProvider
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if l := cfg.Lesson; l != nil {
		cfg.Notify, cfg.Tour = l.Notify, l.Tour
	}
	tour, err := tourFor(cfg)
	if err != nil {
		return nil, err
	}
	s := &Session{
		cfg:      cfg,
		tour:     tour,
		peerPlan: peerTourFor(cfg),
		outcomes: make([]*Outcome, len(tour)),
		states:   make([]RunState, len(tour)),
	}
	if cfg.Lesson != nil {
		s.initPrediction(cfg.Lesson.prediction(cfg))
	}
	return s, nil
}

// tourFor is the tour cfg's side runs (cfg validated, the lesson's notify
// mode already in cfg.Notify), or the step a lesson's edit names that the
// tour lacks.
func tourFor(cfg Config) ([]Step, error) {
	tour := baseTour(cfg)
	if cfg.Track == TrackManual {
		tour = manualTour(cfg.Role, cfg.Notify)
	}
	if cfg.Lesson == nil {
		return tour, nil
	}
	edited, err := cfg.Lesson.apply(cfg, tour)
	if err != nil {
		return nil, err
	}
	return markLessonSteps(tour, edited), nil
}

// Config returns the session's configuration (with defaults applied).
func (s *Session) Config() Config { return s.cfg }

// Steps returns the tour.
func (s *Session) Steps() []Step { return append([]Step(nil), s.tour...) }

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
	verdict := s.reveal(st.ID, err)
	if err != nil {
		out.Failure = Text{ExplainIn(err, "en"), ExplainIn(err, "zh")}
		if st.Expect.Matches(err) {
			out.Expected = true
			err = nil
		}
	} else if st.Expect != nil {
		out.Note = s.explainMismatch(Text{"This lesson expected " + st.Expect.What.EN + ", but the call succeeded. " + out.Note.EN,
			"本课预期会出现 " + st.Expect.What.ZH + "，但这次调用成功了。" + out.Note.ZH}, false)
	}
	out.Note = joinNotes(out.Note, verdict)

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
		return out, fmt.Errorf("step %s: %w", st.ID, err)
	}
	s.states[idx] = Succeeded
	s.next++
	if s.next == len(s.tour) {
		s.done = true
	}
	return out, nil
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
	stmts, err := s.teardownC()
	calls := c.Lines(stmts, c.Actual)
	s.recordEnd(calls, err)
	return calls, err
}

// teardownC frees what is still allocated and returns the C it ran.
func (s *Session) teardownC() ([]c.Stmt, error) {
	s.stopGate() // before the ids and the channel it reads go
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil
	}
	s.closed = true
	s.done = true
	if s.dev != nil {
		s.refreshPackets()
	}
	var calls []c.Stmt
	var firstErr error
	do := func(call c.Stmt, f func() error) {
		if err := f(); err != nil {
			call = failed(call, err)
			if firstErr == nil {
				firstErr = err
			}
		} else if call.Check != c.NoCheck {
			call = call.Returned("0") // the others return void
		}
		calls = append(calls, call)
	}
	if s.id != nil && s.connected && !s.disconnected {
		// rdma_destroy_id would send the DREQ too; doing it explicitly
		// makes the peer's DISCONNECTED prompt and visible.
		do(disconnectCall().Returned("sends the DREQ"), s.id.Disconnect)
		s.disconnected = true
	}
	if s.ud.ah != nil {
		do(destroyCall("ibv_destroy_ah", "ah"), s.ud.ah.Destroy)
		s.ud.ah = nil
	}
	if s.qp != nil && s.manualQP {
		do(destroyQPCall(true), s.qp.Destroy)
		s.qp = nil
	}
	if s.id != nil && s.qp != nil {
		do(destroyQPCall(false), func() error { return s.id.DestroyQP() })
		s.qp = nil
	}
	for _, m := range []struct {
		buf string
		mr  *verbs.MR
	}{{"send_buf", &s.mrSend}, {"recv_buf", &s.mrRecv}, {"doorbell", &s.mrDoor}, {"buf", &s.mrData}} {
		if *m.mr != nil {
			mr := *m.mr
			do(destroyCall("ibv_dereg_mr", mrVar(m.buf)), mr.Dereg)
			calls = append(calls, c.S(c.Call("free", c.C(m.buf))))
			*m.mr = nil
		}
	}
	if s.cq != nil {
		do(destroyCall("ibv_destroy_cq", "cq"), s.cq.Destroy)
		s.cq = nil
	}
	if s.pd != nil && !s.sharedPD {
		do(destroyCall("ibv_dealloc_pd", "pd"), s.pd.Dealloc)
	}
	s.pd = nil
	if s.id != nil {
		do(destroyCall("rdma_destroy_id", "id"), s.id.Destroy)
		s.id = nil
	}
	if s.listener != nil {
		do(destroyCall("rdma_destroy_id", "listener"), s.listener.Destroy)
		s.listener = nil
	}
	if s.ec != nil {
		do(destroyECCall(), func() error { return s.ec.Destroy() })
		s.ec = nil
	}
	s.dev = nil
	return calls, firstErr
}

// addTimeline records a message between the sides.
func (s *Session) addTimeline(fromServer bool, label, detail string) {
	s.addTimelineText(fromServer, label, Text{EN: detail})
}

// addTimelineText records a message whose detail has words to translate.
func (s *Session) addTimelineText(fromServer bool, label string, detail Text) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timeline = append(s.timeline, TimelineEntry{Time: time.Now(), FromServer: fromServer, Label: label, Detail: detail.EN, DetailZH: detail.ZH})
}

// sent records a message this side sent; got one it received.
func (s *Session) sent(label, detail string) { s.addTimeline(s.cfg.Role == Server, label, detail) }
func (s *Session) got(label, detail string)  { s.addTimeline(s.cfg.Role != Server, label, detail) }

// gotText records a message received whose detail has words to translate.
func (s *Session) gotText(label string, detail Text) {
	s.addTimelineText(s.cfg.Role != Server, label, detail)
}

// sentText records a message sent whose detail has words to translate.
func (s *Session) sentText(label string, detail Text) {
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
