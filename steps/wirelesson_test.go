package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// The timeline of lost-write, as the client notes it from its packets:
// the lost MIDDLE crossed out (it reaches no one), the server's NAK with
// the PSN it asks for, and the MIDDLE and LAST sent again with how long
// after their first copies.
func TestLostWriteOnTheTimeline(t *testing.T) {
	p := newLessonPair(t, steps.NotifySend, "lesson lost-write", "lost-write", 0)
	p.runTurns(t, -1)
	var lost, nak, resent []steps.TimelineEntry
	for _, e := range p.cli.Snapshot().Timeline {
		switch {
		case e.Fate == steps.FateLost:
			lost = append(lost, e)
		case strings.HasPrefix(e.Label, "NAK PSN sequence error psn="):
			nak = append(nak, e)
		case strings.HasSuffix(e.Label, " ↻"):
			resent = append(resent, e)
		}
	}
	if len(lost) != 1 || !strings.HasPrefix(lost[0].Label, "RDMA_WRITE_MIDDLE psn=") || lost[0].FromServer {
		t.Fatalf("lost: %+v, want the client's RDMA_WRITE_MIDDLE", lost)
	}
	psn := strings.TrimPrefix(lost[0].Label, "RDMA_WRITE_MIDDLE psn=")
	if len(nak) != 1 || nak[0].Label != "NAK PSN sequence error psn="+psn || !nak[0].FromServer {
		t.Errorf("NAK: %+v, want one from the server asking for PSN %s", nak, psn)
	}
	if len(resent) != 2 || resent[0].Label != "RDMA_WRITE_MIDDLE psn="+psn+" ↻" || !strings.Contains(resent[0].Detail, "ms after the first copy") {
		t.Errorf("resent: %+v, want MIDDLE and LAST again, timed", resent)
	}
}
