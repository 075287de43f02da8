package steps

import (
	"strings"
	"testing"
)

// TestTimelineFollowsTheLesson: the timeline's words for the NIC's own
// doing follow what happened — with rnr_retry_count 0 the requester
// does not retry; a WRITE the responder NAKed wrote nothing (the ux
// review: "the requester waits and retries" at rnr_retry_count 0,
// "writes them itself — no CPU" just before the NAK).
func TestTimelineFollowsTheLesson(t *testing.T) {
	for _, tt := range []struct {
		lesson    string
		rnrRetry  uint8
		role      Role
		label     string
		want, not string
	}{
		{"no-recv", 0, Client, "RNR NAK", "rnr_retry_count = 0: the requester does not retry", "waits and retries"},
		{"no-recv", 0, Server, "RNR NAK", "rnr_retry_count", "waits and retries"},
		{"no-recv", MaxRNRRetry, Client, "RNR NAK", "waits and retries until", "does not retry"},
		{"bad-rkey", 0, Server, "RDMA WRITE", "writes nothing and answers with a NAK", "writes them itself"},
	} {
		t.Run(tt.lesson+"/"+tt.role.String(), func(t *testing.T) {
			l := lessonNamed(tt.lesson)
			sides := runPair(t, Config{Notify: l.Notify, Lesson: l, RNRRetry: tt.rnrRetry})
			found := false
			for _, e := range sides[tt.role].Snapshot().Timeline {
				if e.Label != tt.label {
					continue
				}
				found = true
				if !strings.Contains(e.Detail, tt.want) || strings.Contains(e.Detail, tt.not) {
					t.Errorf("%s: %q, want %q and no %q", e.Label, e.Detail, tt.want, tt.not)
				}
			}
			if !found {
				t.Errorf("no %s on the %s's timeline", tt.label, tt.role)
			}
		})
	}
}
