package steps

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// The one-client server (no --workshop) serves the first client that
// connects, as the seed does. Its gate owns the event channel from
// rdma_listen on: it hands the first CONNECT_REQUEST and every event of
// that connection to the tour, and turns every later client away at once
// with rdma_reject, the reason in the REJ's private data, so the second
// client prints why instead of timing out, and the first client's tour
// goes on untouched.

// BusyReason is the start of the reason a one-client server gives a
// client it turns away (the rest names the client it serves).
const BusyReason = "server busy with another client"

// FullReason is what a workshop server that has max attendees says.
func FullReason(max int) string { return fmt.Sprintf("server full: %d attendees", max) }

// TourMismatchReason is the start of the reason a workshop room gives an
// attendee whose tour is not the room's.
const TourMismatchReason = "this workshop runs --tour "

// RoomPlanError is a REJ from a workshop room whose plan (tour and
// lesson) is not what this client ran: the plan came with it
// (privdata.RejectWithPlan), so the client can start again with it.
type RoomPlanError struct {
	Plan Hello
	Err  error
}

// Error is the REJ's own error: the words the room gave are the Problem's.
func (e *RoomPlanError) Error() string { return e.Err.Error() }

func (e *RoomPlanError) Unwrap() error { return e.Err }

// RoomPlan is the plan a workshop room turned this client away with, nil
// when none did: a front end that shows the failure (the TUI) can start
// the client again with it once the learner leaves the screen.
func (s *Session) RoomPlan() *RoomPlanError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roomPlan
}

// Lesson is the plan's lesson (nil: the plain tour, or a lesson this
// build does not know).
func (e *RoomPlanError) Lesson() *Lesson {
	l, err := ParseLesson(e.Plan.Lesson)
	if e.Plan.Lesson == "" || err != nil {
		return nil
	}
	return l
}

// gate is the reader of a one-client server's event channel.
type gate struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	taken bool           // the first CONNECT_REQUEST went to the tour
	first netip.AddrPort // that client's address
}

// startGate starts reading s.ec; the tour then reads s.events.
func (s *Session) startGate() {
	ctx, cancel := context.WithCancel(context.Background())
	g := &gate{cancel: cancel, done: make(chan struct{})}
	q := NewEventQueue()
	s.set(func() { s.gate, s.events = g, q })
	go func() {
		defer close(g.done)
		Pump(ctx, s.ec, func(ev verbs.CMEvent) {
			if ev.Type == verbs.EventConnectRequest && !g.take(ev) {
				s.turnAway(ev, g.busyReason())
				return
			}
			q.Put(ev)
		}, q.Close)
	}()
}

// take says whether ev is the first CONNECT_REQUEST (the tour's).
func (g *gate) take(ev verbs.CMEvent) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.taken {
		return false
	}
	g.taken = true
	if ev.ID != nil {
		g.first = ev.ID.PeerAddr()
	}
	return true
}

func (g *gate) busyReason() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := BusyReason
	if g.first.IsValid() {
		r += " (" + g.first.Addr().String() + ")"
	}
	return r + "; one client at a time: try again when it is done, or ask for `rdmatour server --workshop`"
}

// stopGate stops the gate and waits for it; safe without one and twice.
// It must not be called with s.mu held (the gate records into the
// session's timeline).
func (s *Session) stopGate() {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	if g == nil {
		return
	}
	g.cancel()
	<-g.done
	// A connect request the gate fetched and the tour never took (it
	// ended before get-connect-request) is this program's id now: turn it
	// away and destroy it, or the event channel stays busy.
	s.mu.Lock()
	q := s.events
	s.mu.Unlock()
	for _, ev := range q.Drain() {
		if ev.Type == verbs.EventConnectRequest {
			RejectRequest(ev, "the server is shutting down")
		}
	}
}

// turnAway rejects a connection request with reason as the REJ's private
// data and destroys the id rdma_cm made for it, so nothing is left on the
// event channel. The rejection goes into the timeline.
func (s *Session) turnAway(ev verbs.CMEvent, reason string) {
	detail := reason
	if err := RejectRequest(ev, reason); err != nil {
		detail = err.Error()
	}
	who := "a client"
	if ev.ID != nil && ev.ID.PeerAddr().IsValid() { // rxe's request id may not know it yet
		who = ev.ID.PeerAddr().String()
	}
	s.addTimeline(true, "REJ", "turned "+who+" away: "+detail)
	s.mu.Lock()
	hook := s.onTurnAway
	s.mu.Unlock()
	if hook != nil {
		hook(who, detail)
	}
}

// OnTurnAway sets f to be told (from the gate's goroutine) of every
// client a one-client server turns away, with why: plain mode prints it,
// where the TUI shows the timeline's REJ. Set it before the tour runs.
func (s *Session) OnTurnAway(f func(who, reason string)) {
	s.set(func() { s.onTurnAway = f })
}

// RejectRequest answers a CONNECT_REQUEST with rdma_reject(reason) and
// rdma_destroy_id.
func RejectRequest(ev verbs.CMEvent, reason string) error {
	return RejectPrivate(ev, []byte(reason))
}

// RejectPrivate is RejectRequest with the REJ's private data as given
// (cut to what a REJ carries): a workshop room's reason and plan.
func RejectPrivate(ev verbs.CMEvent, msg []byte) error {
	if ev.ID == nil {
		return nil
	}
	if len(msg) > verbs.MaxRejectPrivateData {
		msg = msg[:verbs.MaxRejectPrivateData]
	}
	rerr := ev.ID.Reject(msg)
	if derr := ev.ID.Destroy(); rerr == nil {
		rerr = derr
	}
	return rerr
}

// rejectedBecause explains an rdma_reject from the server, with the
// reason it put in the REJ's private data (escaped: it is the peer's).
func rejectedBecause(err error, private []byte) error {
	words, rest := privdata.SplitReject(private)
	reason := privdata.PeerBytes(bytes.TrimRight(words, "\x00")).String()
	if plan, found, perr := ParseHello(rest); found && perr == nil {
		err = &RoomPlanError{Plan: plan, Err: err}
	}
	what := text.Text{EN: "the server rejected the connection", ZH: "server 拒绝了连接"}
	fix := text.Text{EN: "look at the server's screen for why", ZH: "看 server 端屏幕上的原因"}
	if reason != "" {
		what.EN += ": " + reason
		what.ZH += "：" + reason
	}
	switch {
	case strings.HasPrefix(reason, BusyReason):
		fix = text.Text{EN: "this server serves one client at a time: run again when the other client is done, or ask for a workshop server (`rdmatour server --workshop`)",
			ZH: "这个 server 一次只服务一个 client：等另一个 client 结束后再运行，或请对方改用 workshop server（`rdmatour server --workshop`）"}
	case strings.HasPrefix(reason, TourMismatchReason):
		fix = text.Text{EN: "the workshop server runs one tour for every attendee: start the client again with the --tour (and --lesson) the reason names, or with neither to follow the room (ask the instructor if unsure)",
			ZH: "workshop server 为所有学员跑同一种教程：按拒绝原因里写的 --tour（和 --lesson）重新启动 client，或者两个都不写、跟随教室（不确定就问讲师）"}
	case strings.HasPrefix(reason, "server full"):
		fix = text.Text{EN: "the workshop server has as many attendees as it takes: ask the instructor to raise --max-attendees, or try again when someone is done",
			ZH: "workshop server 的名额已满：请讲师调大 --max-attendees，或等有人结束后再试"}
	}
	return problem(err, what, fix)
}
