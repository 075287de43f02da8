package workshop_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestHalfOpenHandshakeTimesOut (hostile review W15): clients that send
// the REQ and never the RTU hold their seats for the handshake's timeout,
// not the idle limit; then they are dropped and freed, and the room takes
// the next attendee.
func TestHalfOpenHandshakeTimesOut(t *testing.T) {
	const handshake = 400 * time.Millisecond
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), MaxAttendees: 2, IdleLimit: time.Minute, HandshakeTimeout: handshake})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	addr := r.ListenAddr(0)
	began := time.Now()
	for range 2 {
		s := clientUntil(t, addr, "get-established") // the REQ went, the RTU never will
		defer s.Close()
	}
	waitRoster(t, r, 2)
	err = runClient(context.Background(), addr, steps.NotifySend, "third", "", "")
	if err == nil || !strings.Contains(steps.ExplainIn(err, "en"), "server full") {
		t.Fatalf("a third client while two handshakes are half open: %v, want 'server full'", err)
	}
	waitEmpty(t, r)
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("the half-open seats were held %v: the idle limit, not the handshake's timeout", took)
	}
	for _, row := range r.Roster()[:2] {
		if row.Phase != workshop.PhaseDropped || !strings.Contains(row.Observed.EN, "no RTU within 400ms of the connect request") {
			t.Errorf("#%d %s: %q; want dropped for the handshake's timeout", row.N, row.Phase, row.Observed.EN)
		}
	}
	if err := runClient(context.Background(), addr, steps.NotifySend, "next", "", ""); err != nil {
		t.Errorf("the next attendee after the timeout: %v", err)
	}
	// The client is done before the room has torn its side down.
	waitEmpty(t, r)
	deadline := time.Now().Add(10 * time.Second)
	for r.Live() != r.Baseline() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if live, base := r.Live(), r.Baseline(); live != base {
		t.Errorf("live objects %d, want the baseline %d", live, base)
	}
}
