//go:build linux && cgo

package rdmacore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/verbs"
)

// Completion channels on rxe: an armed CQ raises one event for the next
// completion (ibv_get_cq_event returns the CQ, which must be acked
// before it can be destroyed); a completion already in the CQ when it
// is armed raises none — the lost wake-up — and polling after the arm
// finds it. The simulated NIC follows the same rules
// (TestCompChannelNotifySemantics).
func TestRxeCompChannel(t *testing.T) {
	p := open(t)
	o := defaults()
	o.cliCompChannel = true
	pr := connect(t, p, rdmaAddr(t, p), o)
	cq := pr.cli.cq.(verbs.NotifyCQ)
	write := func(id uint64) {
		t.Helper()
		pr.cli.post(t, verbs.SendWR{WRID: id, Opcode: verbs.WRRDMAWrite, Flags: verbs.SendSignaled,
			SGList:     []verbs.SGE{{Addr: pr.cli.data.Addr(), Length: 8, LKey: pr.cli.data.LKey()}},
			RemoteAddr: pr.srv.data.Addr(), RKey: pr.srv.data.RKey()})
	}
	eventWithin := func(d time.Duration) (verbs.NotifyCQ, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		return pr.cli.cc.GetCQEvent(ctx)
	}

	noErr(t, cq.ReqNotify(false))
	write(1)
	start := time.Now()
	got, err := eventWithin(evTimeout)
	if err != nil || got != cq {
		t.Fatalf("armed CQ, one WRITE: ibv_get_cq_event = %v, %v; want the CQ", got, err)
	}
	t.Logf("the event came %v after the post", time.Since(start))
	if cq.Unacked() != 1 {
		t.Errorf("unacked %d, want 1", cq.Unacked())
	}
	if wc := pollOneT(t, cq); wc.WRID != 1 || wc.Status != verbs.WCSuccess {
		t.Fatalf("wc %+v", wc)
	}
	cq.AckEvents(1)

	// The lost wake-up: the WRITE completes while the CQ is not armed
	// (time enough for it even under TCG), then the arm and the wait.
	write(2)
	time.Sleep(2 * time.Second)
	noErr(t, cq.ReqNotify(false))
	if got, err := eventWithin(time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an event (%v, %v) for a completion that was in the CQ before the arm", got, err)
	}
	if wc := pollOneT(t, cq); wc.WRID != 2 || wc.Status != verbs.WCSuccess {
		t.Fatalf("the completion the wait slept through: %+v", wc)
	}
	// Still armed: the next completion raises the event.
	write(3)
	if got, err := eventWithin(evTimeout); err != nil || got != cq {
		t.Fatalf("re-armed: %v, %v", got, err)
	}
	pollOneT(t, cq)
	noErr(t, pr.cli.id.DestroyQP()) // the CQ is free of QPs: only the event holds it
	pr.cli.qp = nil
	var ve *verbs.Error
	if err := cq.Destroy(); !errors.As(err, &ve) || ve.Func != "ibv_destroy_cq" || !strings.Contains(ve.Detail, "not acked") {
		t.Fatalf("ibv_destroy_cq with an unacked event: %v, want refused for it", err)
	}
	cq.AckEvents(1)
}
