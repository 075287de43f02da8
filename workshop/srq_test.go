package workshop_test

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestSRQRoom: a --srq room on the simulated NIC. Twelve attendees, four
// at a time, in all three notify modes, through a room whose SRQ holds 8
// RECVs with its limit at 2: the SENDs and WRITE_WITH_IMMs take the SRQ's
// RECVs (each attendee's notification and message land), the doorbell
// takes none, the limit event comes and the room fills the SRQ again;
// after everyone, the room is back at its baseline and closes clean.
func TestSRQRoom(t *testing.T) {
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), MaxAttendees: 8, IdleLimit: 20 * time.Second, SRQ: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	addr := r.ListenAddr(0)
	const n = 12
	for start := 0; start < n; start += 4 {
		errs := make(chan error, 4)
		for i := start; i < start+4; i++ {
			go func() {
				errs <- runClient(context.Background(), addr, steps.Notify(i%3), fmt.Sprintf("srq attendee %d", i), "", "")
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.Counts().Finished < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for _, row := range r.Roster() {
		if row.Phase != workshop.PhaseFinished || !row.Landed || !strings.HasPrefix(row.Message.String(), "srq attendee ") {
			t.Errorf("#%d: %v %q %q", row.N, row.Phase, row.Message, row.Observed.EN)
		}
	}
	levels := r.SRQLevels()
	if len(levels) != 1 {
		t.Fatalf("SRQ levels %+v, want one (one backend)", levels)
	}
	l := levels[0]
	// 8 of the 12 notify by SEND or imm: the 7th taken leaves 1 < 2, the
	// event, and the room fills the SRQ again when it next hears of a
	// RECV taken (the 6th's or 7th's completion, whichever it reads
	// last); then the last one or two are taken. Without the refill it
	// would be empty.
	if l.Depth != 8 || l.Limit != 2 || l.Events != 1 || l.Posted < 6 || l.Posted > 7 || l.Err != "" {
		t.Errorf("SRQ level %+v; want 6 or 7 of 8 posted, limit 2, 1 limit event", l)
	}
	if line := workshop.SRQLine(levels); !strings.Contains(line, fmt.Sprintf("sim %d/8 RECVs posted, limit 2, 1 limit event(s)", l.Posted)) {
		t.Errorf("SRQ line %q", line)
	}
	if live, base := r.Live(), r.Baseline(); live != base {
		t.Errorf("live objects %d with nobody in the room, baseline %d", live, base)
	}
	if err := r.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// An SRQ room runs the write tour: the read and atomic tours' servers
// post no RECV for it to share.
func TestSRQRoomNeedsTheWriteTour(t *testing.T) {
	_, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), SRQ: true, Tour: steps.TourAtomic})
	if err == nil || !strings.Contains(err.Error(), "--srq runs the write tour") {
		t.Errorf("got %v", err)
	}
}
