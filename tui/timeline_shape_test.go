package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestTimelineReadAndAtomicShape: the timeline draws a READ as a
// request going to the server and a response carrying the data back,
// and an atomic as its request and the ATOMIC_ACKNOWLEDGE carrying the
// old value — not as a WRITE's one message and ACK; and the ud tour's
// answer going back to the client.
func TestTimelineReadAndAtomicShape(t *testing.T) {
	cases := []struct {
		tour     steps.TourKind
		lang     text.Lang
		last     string
		wantLine []string // arrow lines, in order: ◀ client→server, ▶ server→client
		wantText []string
	}{
		{steps.TourRead, text.EN, "poll-read", []string{"◀─ RDMA_READ_REQUEST ─┤", "├─ RDMA_READ_RESPONSE ─▶"},
			[]string{"B from 0x", "B of data back"}},
		{steps.TourRead, text.ZH, "poll-read", []string{"◀─ RDMA_READ_REQUEST ─┤", "├─ RDMA_READ_RESPONSE ─▶"},
			[]string{"字节数据"}},
		{steps.TourAtomic, text.EN, "poll-cmp-swap", []string{"◀─ FETCH_ADD ─┤", "├─ ATOMIC_ACKNOWLEDGE ─▶", "◀─ COMPARE_SWAP ─┤", "├─ ATOMIC_ACKNOWLEDGE ─▶"},
			[]string{"old value 40, back into buf", "old value 42"}},
		{steps.TourAtomic, text.ZH, "poll-cmp-swap", []string{"◀─ FETCH_ADD ─┤", "├─ ATOMIC_ACKNOWLEDGE ─▶"},
			[]string{"带回原值 40"}},
		// UD: the early datagram is not taken for the one the server
		// received, and the server's answer goes back.
		{steps.TourUD, text.EN, "ud-await-reply", []string{"◀─ UD SEND (early) ─┤", "◀─ UD SEND ─┤", "├─ UD SEND (reply) ─▶"},
			[]string{"the answer, 7 B from QP"}},
	}
	for _, tc := range cases {
		t.Run(tc.tour.String()+"-"+tc.lang.String(), func(t *testing.T) {
			m := udDemo(t, tc.tour, tc.lang)
			runUntil(t, m, 1, tc.last)
			var arrows []string
			lines := m.timelineLines(60)
			for _, l := range lines {
				l = ansi.Strip(l)
				if strings.ContainsAny(l, "◀▶") {
					arrows = append(arrows, squeezeRule(l))
				}
			}
			tl := ansi.Strip(strings.Join(lines, "\n"))
			at := 0
			for _, want := range tc.wantLine {
				for at < len(arrows) && arrows[at] != want {
					at++
				}
				if at == len(arrows) {
					t.Fatalf("no %q (in order) among the arrows %q:\n%s", want, arrows, tl)
				}
				at++
			}
			for _, want := range tc.wantText {
				if !strings.Contains(tl, want) {
					t.Errorf("timeline lacks %q:\n%s", want, tl)
				}
			}
		})
	}
}

// squeezeRule shortens every run of the arrow's rule to one "─".
func squeezeRule(l string) string {
	for strings.Contains(l, "──") {
		l = strings.ReplaceAll(l, "──", "─")
	}
	return l
}
