package workshop

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// A Room is the workshop server: it listens (on every backend it is given:
// the real device and the simulated NIC at once) and serves every attendee
// at the same time. Each attendee gets a steps.Session of its own — its own CM
// id, PD, CQ, QP and MRs — that runs the server's side of the tour by
// itself; the event channel, the listener and the device are the Room's
// and shared.
//
// The PD, not the rkey, is what keeps one attendee out of another's
// buffer: a responder serves an rkey only for an MR in the PD of the QP
// the request came on, and an rkey is an index and 8 random bits, found
// in a few hundred guesses. So a write or read room gives every attendee
// a PD of their own (steps.Host: PD nil). The atomic room cannot: every
// attendee's QP must reach the one counter, so their QPs share the PD
// the counter is in, and the counter is the only MR there with a remote
// right (the attendees' own buffers in it are LOCAL_WRITE only).

// Room defaults.
const (
	DefaultMaxAttendees = 60
	// DefaultStuckAfter is how long an attendee may wait at one step
	// before the roster marks them stuck: long enough to read a page,
	// short enough that an instructor walks over before they give up.
	DefaultStuckAfter = 2 * time.Minute
	// DefaultIdleLimit is how long a workshop server waits for an
	// attendee's next event (its RTU, its notification) before it drops
	// the attendee and frees what it held.
	DefaultIdleLimit = 15 * time.Minute
)

// Config says how a workshop server runs.
type Config struct {
	// Providers are the backends to listen on, each on Bind's address
	// and port (rdma_cm's port space and the simulated NIC's TCP port do
	// not collide).
	Providers  []verbs.Provider
	BackendWhy text.Text
	Bind       netip.AddrPort
	// MaxAttendees is how many attendees may be connected at once (0 =
	// DefaultMaxAttendees); the next one is rejected with steps.FullReason.
	MaxAttendees int
	// IdleLimit drops an attendee whose next event does not come within
	// it (0 = DefaultIdleLimit).
	IdleLimit time.Duration
	// HandshakeTimeout drops an attendee whose connection is not
	// ESTABLISHED within it of its connect request (0 =
	// DefaultHandshakeTimeout; handshake.go says why).
	HandshakeTimeout time.Duration
	// StuckAfter marks an attendee stuck on the roster when nothing
	// happened for longer (0 = DefaultStuckAfter). It only marks: the
	// idle limit is what drops.
	StuckAfter time.Duration
	RNRRetry   uint8
	// Tour is the tour the room runs for every attendee: write (the zero
	// value), read, or atomic (one counter shared by the room, see
	// counter.go). An attendee whose hello names another tour is
	// turned away with steps.TourMismatchReason.
	Tour steps.TourKind
	// SRQ gives the room a shared receive queue per device (srq.go):
	// every attendee's QP takes its RECVs from it, and they share its PD.
	SRQ bool
	// Lesson is the room's lesson when it opens (nil: the plain tour);
	// it must run on Tour. The instructor changes it between runs
	// (Room.SetLesson, NextLesson; plan.go).
	Lesson *steps.Lesson
	// OnEvent, when set, is called (from the attendees' goroutines, one
	// call at a time) for every event of every attendee.
	OnEvent func(Event)
}

// Event is one thing the server observed of one attendee.
type Event struct {
	Time time.Time
	Row  Row       // the attendee as it stands after the event
	What text.Text // "connected", "turned away: server full: 50 attendees", ...
}

// Room is a running workshop server.
type Room struct {
	cfg       Config
	listeners []*listener
	ctx       context.Context // the attendees' sessions run under it
	cancel    context.CancelFunc
	pumps     sync.WaitGroup
	serving   sync.WaitGroup
	emitMu    sync.Mutex

	mu            sync.Mutex
	attendees     []*Attendee              // everyone who came, in order
	byID          map[verbs.CMID]*Attendee // those still connected
	pds           map[verbs.Device]verbs.PD
	counters      map[verbs.Device]*roomCounter // the atomic room's shared counter, per device
	srqs          map[verbs.Device]*roomSRQ     // --srq: the room's SRQ, per device (srq.go)
	finalSRQ      []SRQLevel                    // their levels when the room closed
	finalCounters []BackendCounter              // their values when the room closed
	turned        int                           // requests rejected (full, closing, or setup failed)
	closed        bool
	baseline      int         // live objects with nobody in the room
	recent        []*Attendee // the last KeptSessions to leave, oldest first (retire.go)
	opened        time.Time
	votes         roomVotes // the room's lesson and the votes on its question (votes.go)
}

// listener is one backend's event channel and listening id.
type listener struct {
	prov     verbs.Provider
	ec       verbs.EventChannel
	listener verbs.CMID
	stop     context.CancelFunc
}

// Open creates, binds and listens on every provider, and starts
// serving. Close ends it.
func Open(cfg Config) (*Room, error) {
	if len(cfg.Providers) == 0 {
		return nil, steps.ErrNoProvider
	}
	if err := checkRoomTour(cfg.Tour); err != nil {
		return nil, err
	}
	if err := checkRoomSRQ(cfg); err != nil {
		return nil, err
	}
	if err := checkRoomLesson(cfg.Lesson, cfg.Tour); err != nil {
		return nil, err
	}
	if cfg.MaxAttendees <= 0 {
		cfg.MaxAttendees = DefaultMaxAttendees
	}
	if cfg.IdleLimit <= 0 {
		cfg.IdleLimit = DefaultIdleLimit
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Room{cfg: cfg, ctx: ctx, cancel: cancel, byID: map[verbs.CMID]*Attendee{},
		pds: map[verbs.Device]verbs.PD{}, counters: map[verbs.Device]*roomCounter{}, srqs: map[verbs.Device]*roomSRQ{}, votes: newRoomVotes(cfg.Lesson)}
	for _, p := range cfg.Providers {
		l, err := listenOn(p, cfg.Bind)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		r.listeners = append(r.listeners, l)
	}
	r.baseline = r.liveNow()
	r.opened = time.Now()
	for _, l := range r.listeners {
		pctx, stop := context.WithCancel(context.Background())
		l.stop = stop
		r.pumps.Add(1)
		go func() {
			defer r.pumps.Done()
			steps.Pump(pctx, l.ec, func(ev verbs.CMEvent) { r.route(l, ev) }, func(error) {})
		}()
	}
	return r, nil
}

// listenOn is the seed's server start on one backend: channel, id, bind,
// listen.
func listenOn(p verbs.Provider, bind netip.AddrPort) (*listener, error) {
	ec, err := p.CreateEventChannel()
	if err != nil {
		return nil, err
	}
	l := &listener{prov: p, ec: ec}
	id, err := ec.CreateID(verbs.PSTCP)
	if err != nil {
		ec.Destroy()
		return nil, err
	}
	l.listener = id
	if err := id.BindAddr(bind); err != nil {
		l.destroy()
		return nil, steps.ExplainBind(err, bind)
	}
	if err := id.Listen(128); err != nil {
		l.destroy()
		return nil, err
	}
	return l, nil
}

func (l *listener) destroy() error {
	err := l.listener.Destroy()
	if e := l.ec.Destroy(); err == nil {
		err = e
	}
	return err
}

// Addrs are the addresses the room listens on, one per backend.
func (r *Room) Addrs() []string {
	var out []string
	for _, l := range r.listeners {
		out = append(out, l.prov.Name()+" "+l.listener.LocalAddr().String())
	}
	return out
}

// JoinCommands are the commands an attendee runs to join, one per
// backend: this host's address as an attendee reaches it, the port, the
// backend and the room's tour (steps.PeerCommand).
func (r *Room) JoinCommands() []text.Text {
	var out []text.Text
	for _, l := range r.listeners {
		local := l.listener.LocalAddr()
		addr := steps.JoinAddrs(l.prov, local.Addr())[0]
		out = append(out, steps.PeerCommand(steps.Config{Role: steps.Server, Provider: l.prov, Tour: r.cfg.Tour, RNRRetry: r.cfg.RNRRetry},
			netip.AddrPortFrom(addr, local.Port())))
	}
	return out
}

// ListenAddr is where the i-th backend listens (with the port the system
// picked when Bind's port is 0).
func (r *Room) ListenAddr(i int) netip.AddrPort { return r.listeners[i].listener.LocalAddr() }

// route hands an event to the attendee it is about, or admits a new one.
func (r *Room) route(l *listener, ev verbs.CMEvent) {
	if ev.Type == verbs.EventConnectRequest {
		r.admit(l, ev)
		return
	}
	r.mu.Lock()
	a := r.byID[ev.ID]
	r.mu.Unlock()
	if a != nil {
		a.events.Put(ev)
	}
}

// admit starts serving a new attendee, or turns the request away.
func (r *Room) admit(l *listener, ev verbs.CMEvent) {
	r.mu.Lock()
	reason, plan := "", false
	switch {
	case r.closed:
		reason = "the workshop is over"
	case len(r.byID) >= r.cfg.MaxAttendees && !r.reclaimSeat(ev):
		reason = r.fullReason(ev)
	default:
		reason = r.planMismatch(ev)
		plan = reason != ""
	}
	if reason != "" {
		r.turned += countsAsTurned(ev, plan)
		r.mu.Unlock()
		r.turnAway(l, ev, reason, plan)
		return
	}
	a := &Attendee{N: len(r.attendees) + 1, Backend: l.prov.Name(), arrived: time.Now(),
		events: steps.NewEventQueue(), phase: PhaseConnecting, last: time.Now(), qpState: "-",
		vote: attendeeVote{lesson: r.votes.lesson, round: r.votes.round, seen: -1}}
	if ev.ID != nil {
		a.Addr = ev.ID.PeerAddr()
	}
	a.handshake, a.endHandshake = r.handshakeContext()
	r.attendees = append(r.attendees, a)
	r.byID[ev.ID] = a
	r.serving.Add(1)
	r.mu.Unlock()
	go r.serve(l, a, ev)
}

// turnAway rejects a request the room cannot take and says so; withPlan
// puts the room's plan in the REJ after the reason (plan.go).
func (r *Room) turnAway(l *listener, ev verbs.CMEvent, reason string, withPlan bool) {
	row := Row{Backend: l.prov.Name(), Phase: PhaseTurnedAway, Observed: turnedWords(ev, withPlan, reason), Last: time.Now()}
	if ev.ID != nil {
		row.Addr = ev.ID.PeerAddr()
	}
	if err := r.reject(ev, reason, withPlan); err != nil {
		row.Observed.EN += " (" + err.Error() + ")"
		row.Observed.ZH += "（" + err.Error() + "）"
	}
	r.emit(Event{Time: row.Last, Row: row, What: row.Observed})
}

func (r *Room) emit(ev Event) {
	if r.cfg.OnEvent == nil {
		return
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.cfg.OnEvent(ev)
}

// sharedPDFor is, in an atomic room, the PD on dev that every attendee's
// QP shares with the counter, and the counter: both made the first time
// an attendee arrives on dev, both raising the room's baseline. In a
// write or read room there is none (nil, nil): each attendee's Session
// allocates a PD of its own.
func (r *Room) sharedPDFor(dev verbs.Device, backend string) (verbs.PD, *roomCounter, error) {
	tour, _ := steps.TourOf(r.cfg.Tour)
	if !tour.SharedCounter && !r.cfg.SRQ {
		return nil, nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pd := r.pds[dev]
	if pd == nil {
		var err error
		if pd, err = dev.AllocPD(); err != nil {
			return nil, nil, err
		}
		r.pds[dev] = pd
		r.baseline++
	}
	if !tour.SharedCounter {
		return pd, nil, nil // an SRQ room: the PD alone (srq.go)
	}
	counter, err := r.counterFor(dev, backend, pd)
	return pd, counter, err
}

// Opened is when the room started listening: a workshop's length is
// measured from it.
func (r *Room) Opened() time.Time { return r.opened }

func (r *Room) stuckAfter() time.Duration {
	if r.cfg.StuckAfter > 0 {
		return r.cfg.StuckAfter
	}
	return DefaultStuckAfter
}

// leave forgets a finished attendee's connection (it stays on the roster).
func (r *Room) leave(a *Attendee, id verbs.CMID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID[id] == a {
		delete(r.byID, id)
	}
}

// Close ends the workshop: no new attendee is taken, every attendee's
// tour is cancelled and its resources freed, then the PDs, listeners and
// channels go. It returns the first error of the room's own teardown
// (attendees' errors are on the roster). Safe twice.
func (r *Room) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	// Attendees first, while the pumps still bring their DREPs; requests
	// that come meanwhile are turned away (closed is set).
	r.cancel()
	r.serving.Wait()
	for _, l := range r.listeners {
		if l.stop != nil {
			l.stop()
		}
	}
	r.pumps.Wait()
	var errs []error
	final, finalSRQ := r.Counters(), r.SRQLevels() // the last values stay on the roster
	r.mu.Lock()
	r.finalCounters, r.finalSRQ = final, finalSRQ
	errs = append(errs, r.closeSRQs()...)
	for dev, c := range r.counters {
		errs = append(errs, c.mr.Dereg()) // before its PD
		delete(r.counters, dev)
	}
	for dev, pd := range r.pds {
		errs = append(errs, pd.Dealloc())
		delete(r.pds, dev)
	}
	r.mu.Unlock()
	for _, l := range r.listeners {
		errs = append(errs, l.destroy())
	}
	return errors.Join(errs...)
}
