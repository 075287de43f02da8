package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
)

// The timeline does not draw a flushed SEND as sent, and shows the NAKs
// that happened, on each side.
func TestTimelineShowsNAKsAndFlushes(t *testing.T) {
	tests := []struct {
		lesson string
		rnr    uint8
		// want: "side: label fate" lines that must be in the timeline
		want []string
	}{
		{"bad-rkey", 0, []string{"client: SEND never-sent", "client: NAK ", "server: NAK "}},
		{"no-remote-write", 0, []string{"client: SEND never-sent", "client: NAK ", "server: NAK "}},
		{"no-recv", 0, []string{"client: SEND sent", "client: RNR NAK sent", "server: RNR NAK sent"}},
		{"no-recv", 7, []string{"client: SEND sent", "client: RNR NAK sent", "server: RNR NAK sent", "client: ACK sent"}},
		{"", 0, []string{"client: SEND sent", "client: ACK sent"}},
	}
	fate := map[steps.Fate]string{steps.FateSent: "sent", steps.FateNeverSent: "never-sent", steps.FateFlushed: "flushed"}
	for _, tt := range tests {
		t.Run(tt.lesson+map[bool]string{true: "/rnr7"}[tt.rnr == 7], func(t *testing.T) {
			p := newLessonPair(t, steps.NotifySend, "timeline", tt.lesson, tt.rnr)
			p.runTurns(t, -1)
			var got []string
			for side, s := range map[string]*steps.Session{"server": p.srv, "client": p.cli} {
				for _, e := range s.Snapshot().Timeline {
					got = append(got, side+": "+e.Label+" "+fate[e.Fate])
				}
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("timeline lacks %q:\n%s", w, all)
				}
			}
			if tt.lesson == "" && strings.Contains(all, "NAK") {
				t.Errorf("the plain tour shows a NAK:\n%s", all)
			}
		})
	}
}
