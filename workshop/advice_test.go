package workshop_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestRosterAdviceFitsAWorkshop (hostile review W3b): attendees who vanish
// in the handshake, or after it, or idle past the limit, fail on the
// roster with what happened and the room's advice (the attendee starts
// their client again, the room goes on), never a one-client server's
// "start the server again" or "start both sides again".
func TestRosterAdviceFitsAWorkshop(t *testing.T) {
	r, addr := openTestRoom(t, 10, 2*time.Second)
	ctx := context.Background()
	halfOpen := clientUntil(t, addr, "get-established") // REQ sent, no RTU
	waitRoster(t, r, 1)
	halfOpen.Close()
	if err := runClient(ctx, addr, steps.NotifySend, "vanish", "", "post-write"); err != nil {
		t.Fatalf("client stopping before its WRITE: %v", err)
	}
	idle := connectedClient(t, addr) // stays until the room drops it
	defer idle.Close()
	waitEmpty(t, r)
	rows := r.Roster()
	if len(rows) != 3 {
		t.Fatalf("roster %+v: want 3 attendees", rows)
	}
	for _, row := range rows {
		low := strings.ToLower(row.Observed.EN)
		if row.Phase != workshop.PhaseFailed && row.Phase != workshop.PhaseDropped {
			t.Errorf("#%d %s: %s; want failed or dropped", row.N, row.Phase, row.Observed.EN)
		}
		if !strings.Contains(row.Observed.EN, "starts their client again; the room goes on") ||
			strings.Contains(low, "server again") || strings.Contains(low, "both sides again") {
			t.Errorf("#%d advises %q; want the room's advice only", row.N, row.Observed.EN)
		}
	}
	if !strings.Contains(rows[0].Observed.EN, "went away during the handshake") {
		t.Errorf("#1 %q: want what happened kept", rows[0].Observed.EN)
	}
	if !strings.Contains(rows[2].Observed.EN, "idle limit") {
		t.Errorf("#3 %q: want the idle limit named", rows[2].Observed.EN)
	}
}
