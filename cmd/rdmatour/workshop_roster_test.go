package main

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/termtext"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestPrintedRosterCutsLongMessages (hostile review T3b): an attendee's
// 1800-byte message, and the observation that quotes it, are cut with …
// in the roster printed at the end, not printed whole.
func TestPrintedRosterCutsLongMessages(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	long := strings.Repeat("A", 1800)
	rows := []workshop.Row{
		{N: 1, Addr: netip.MustParseAddrPort("10.0.0.1:40001"), Backend: "sim", QPN: 0x101, QPState: "IBV_QPS_RTS",
			Phase: workshop.PhaseFinished, Observed: text.Same("1800 B landed, notified by SEND: " + long), Landed: true,
			Message: privdata.PeerBytes(long), Last: now},
		{N: 2, Addr: netip.MustParseAddrPort("10.0.0.2:40002"), Backend: "sim", Phase: workshop.PhaseFailed,
			Observed: text.Same("error: " + long), Last: now},
		{N: 3, Addr: netip.MustParseAddrPort("10.0.0.3:40003"), Backend: "sim", Phase: workshop.PhaseLanded,
			Observed: text.Same("connected"), Landed: true, Message: privdata.PeerBytes("short \x1b[2J"), Last: now},
	}
	var out bytes.Buffer
	writeRoster(&out, rows, workshop.Counts{Finished: 1, Failed: 1, Connected: 1}, now)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want the counts, the heading and 3 rows:\n%s", len(lines), out.String())
	}
	for _, l := range lines[2:4] {
		if w := termtext.Width(l); w > 140 || !strings.HasSuffix(l, "…") {
			t.Errorf("a row of %d cells, want it cut with … under 140:\n%s", w, l)
		}
	}
	if !strings.Contains(lines[4], `"short \e[2J" · connected`) || strings.Contains(out.String(), "\x1b") {
		t.Errorf("the short message must show whole and escaped: %q", lines[4])
	}
	if !strings.HasPrefix(lines[1], "   #  name/address") || !strings.Contains(lines[1], "message · observed") {
		t.Errorf("heading %q: want the workshop screen's columns", lines[1])
	}
}
