package sim

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// notifyCQ is a CQ on a fresh completion channel of a fresh simulated NIC.
func notifyCQ(t *testing.T) (verbs.CompChannel, *cq) {
	t.Helper()
	p := New(Options{})
	ch, err := p.dev.CreateCompChannel()
	must(t, err)
	c, err := ch.CreateCQ(16)
	must(t, err)
	return ch, c.(*cq)
}

// eventWithin is GetCQEvent bounded by d: nil when no event came.
func eventWithin(t *testing.T, ch verbs.CompChannel, d time.Duration) verbs.NotifyCQ {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	got, err := ch.GetCQEvent(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	must(t, err)
	return got
}

var sendOK = verbs.WC{WRID: 1, Status: verbs.WCSuccess, Opcode: verbs.WCSend}

// rxe_cq.c's rules: an armed CQ raises one event for its next
// completion and is disarmed; completions already there raise none (the
// lost wake-up: poll found nothing, a completion landed, then the arm);
// the fix is to poll again after arming.
func TestCompChannelNotifySemantics(t *testing.T) {
	ch, c := notifyCQ(t)
	must(t, c.ReqNotify(false))
	c.push(sendOK)
	if got := eventWithin(t, ch, time.Second); got != verbs.NotifyCQ(c) {
		t.Fatalf("armed CQ, one completion: event for %v, want the CQ", got)
	}
	if c.Unacked() != 1 {
		t.Errorf("unacked %d, want 1", c.Unacked())
	}
	c.push(sendOK) // not re-armed: no event
	if got := eventWithin(t, ch, 50*time.Millisecond); got != nil {
		t.Error("an event without re-arming")
	}
	c.AckEvents(1)

	// The lost wake-up: the completion is in the CQ before the arm.
	drained, _ := c.Poll(16)
	if len(drained) != 2 {
		t.Fatalf("polled %d, want 2", len(drained))
	}
	c.push(sendOK)
	must(t, c.ReqNotify(false))
	if got := eventWithin(t, ch, 100*time.Millisecond); got != nil {
		t.Fatal("an event for a completion that was there before the arm")
	}
	if wcs, _ := c.Poll(1); len(wcs) != 1 {
		t.Fatal("the completion the wait slept through is not in the CQ")
	}

	// Solicited only: a successful send raises nothing, a failed receive
	// (rxe marks those solicited) raises the event; NEXT_COMP is not
	// narrowed by a later solicited arm.
	_, c2 := notifyCQ(t)
	must(t, c2.ReqNotify(true))
	c2.push(sendOK)
	if c2.notify.armed != armSolicited {
		t.Error("a send completion fired a solicited-only arm")
	}
	c2.push(verbs.WC{WRID: 2, Status: verbs.WCWRFlushErr, Opcode: verbs.WCRecv})
	if c2.notify.armed != armNone {
		t.Error("a flushed receive did not fire the solicited arm")
	}
	must(t, c2.ReqNotify(false))
	must(t, c2.ReqNotify(true))
	if c2.notify.armed != armNext {
		t.Error("a solicited arm narrowed NEXT_COMP")
	}
}

// Teardown: a CQ with an event not acked is refused (rdma-core would
// wait forever), a channel with a CQ is EBUSY, then both go.
func TestCompChannelTeardown(t *testing.T) {
	ch, c := notifyCQ(t)
	must(t, c.ReqNotify(false))
	c.push(sendOK)
	if eventWithin(t, ch, time.Second) == nil {
		t.Fatal("no event")
	}
	wantErrno(t, ch.Destroy(), "ibv_destroy_comp_channel", syscall.EBUSY)
	wantErrno(t, c.Destroy(), "ibv_destroy_cq", syscall.EBUSY)
	c.AckEvents(1)
	must(t, c.Destroy())
	must(t, ch.Destroy())
	if live := c.dev.p.Live(); live.Total() != 0 {
		t.Errorf("left alive: %+v", live)
	}
	if err := c.ReqNotify(false); err == nil {
		t.Error("arming a destroyed CQ")
	}
	plain, err := c.dev.CreateCQ(4)
	must(t, err)
	if err := plain.(*cq).ReqNotify(false); err == nil {
		t.Error("arming a CQ without a channel")
	}
	must(t, plain.Destroy())
}
