package steps_test

import (
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// Each lesson, run to the end on two simulated NICs, must produce exactly
// its error at exactly its step, and nothing else may fail.
func TestLessonsOnSimulatedNIC(t *testing.T) {
	tests := []struct {
		lesson string
		rnr    uint8
		// expected errors: "side/step-id" → text the failure must contain
		want map[string]string
		// whether the server ends up with the client's message
		delivered bool
		rnrNAKs   bool // the client must have received RNR NAKs
	}{
		{"no-recv", 0, map[string]string{
			"client/poll-notify": "RNR retry counter exceeded",
			"server/wait-notify": "RDMA_CM_EVENT_DISCONNECTED"}, false, true},
		{"no-recv", 7, map[string]string{}, true, true},
		{"bad-rkey", 0, map[string]string{
			"client/poll-write":  "remote access error",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "Work Request Flushed Error"}, false, false},
		{"out-of-bounds", 0, map[string]string{
			"client/poll-write":  "remote access error",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "Work Request Flushed Error"}, false, false},
		{"no-remote-write", 0, map[string]string{
			"client/poll-write":  "remote access error",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "Work Request Flushed Error"}, false, false},
		{"htonl-address", 0, map[string]string{
			"client/poll-write":  "remote access error",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "Work Request Flushed Error"}, false, false},
		{"post-before-connect", 0, map[string]string{
			"client/post-write-early": "ibv_post_send: invalid argument (errno 22 EINVAL)"}, true, false},
		{"doorbell-ordering", 0, map[string]string{}, true, false},
		{"lost-write", 0, map[string]string{}, true, false},
		{"lost-ack", 0, map[string]string{}, true, false},
		{"peer-vanished", 0, map[string]string{
			"client/poll-write":  "transport retry counter exceeded",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "RDMA_CM_EVENT_DISCONNECTED"}, false, false},
		{"retry-zero", 0, map[string]string{
			"client/poll-write":  "transport retry counter exceeded",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "RDMA_CM_EVENT_DISCONNECTED"}, false, false},
		// The manual track's addressing lessons (TestAddressingFacts on rxe).
		{"wrong-gid-index", 0, map[string]string{"client/modify-rtr": "sgid_index 0 is fe80::"}, true, false},
		{"rtr-mask", 0, map[string]string{"client/modify-rtr": "INIT → RTR requires IBV_QP_AV in the mask"}, true, false},
		{"path-mtu-mismatch", 0, map[string]string{
			"client/poll-write":  "remote invalid request error",
			"client/poll-notify": "Work Request Flushed Error",
			"server/wait-notify": "Work Request Flushed Error"}, false, false},
		// Both QPs brought back from ERR on the same connection
		// (TestRecoveryFacts on rxe): the second WRITE lands.
		{"recover-qp", 0, map[string]string{
			"client/poll-write":  "remote access error",
			"server/wait-notify": "Work Request Flushed Error"}, true, false},
		// The client alone back: the server's QP in ERR drops its WRITE.
		{"recover-one-side", 0, map[string]string{
			"client/poll-write":       "remote access error",
			"client/poll-write-again": "transport retry counter exceeded",
			"server/wait-notify":      "Work Request Flushed Error"}, false, false},
	}
	for _, tt := range tests {
		name := tt.lesson
		if tt.rnr != 0 {
			name += "/rnr7"
		}
		t.Run(name, func(t *testing.T) {
			l, err := steps.LessonByName(tt.lesson)
			if err != nil {
				t.Fatal(err)
			}
			msg := "lesson " + tt.lesson
			p := newLessonPair(t, l.Notify, msg, tt.lesson, tt.rnr)
			// No pause before the server's late RECV: the step itself
			// waits until its RNR NAK went out (rnrwait.go).
			p.runTurns(t, -1)
			seen := map[string]bool{}
			for side, s := range map[string]*steps.Session{"server": p.srv, "client": p.cli} {
				if done, failed := s.Done(); !done || failed {
					t.Errorf("%s: done=%v failed=%v", side, done, failed)
				}
				for _, st := range s.Snapshot().Steps {
					key := side + "/" + st.ID
					o := st.Outcome
					if o == nil {
						t.Errorf("%s did not run", key)
						continue
					}
					want, expected := tt.want[key]
					if o.Expected != expected {
						t.Errorf("%s: expected error = %v (failure %q), want %v", key, o.Expected, o.Failure.EN, expected)
					}
					if expected {
						seen[key] = true
						if !strings.Contains(o.Failure.EN, want) {
							t.Errorf("%s: failure %q lacks %q", key, o.Failure.EN, want)
						}
						if o.Failure.ZH == "" {
							t.Errorf("%s: no Chinese explanation", key)
						}
					}
				}
			}
			if len(seen) != len(tt.want) {
				t.Errorf("saw expected errors at %v, want %v", seen, tt.want)
			}
			srv := p.srv.Snapshot()
			if tt.delivered {
				if srv.Result == nil || strings.TrimRight(string(srv.Result.Message), " ") != msg {
					t.Errorf("server result = %+v, want the message delivered", srv.Result)
				}
			} else if srv.Result != nil {
				t.Errorf("server got a result %+v although the lesson's write must fail", srv.Result)
			}
			if want, ok := wireLessons[tt.lesson]; ok {
				if lost, again := countLostAndResent(p.cli); want != [2]int{lost, again} {
					t.Errorf("client: %d packets lost, %d resent; want %v", lost, again, want)
				}
			}
			if rnrNAKs := countRNRNAKs(p.cli); tt.rnrNAKs != (rnrNAKs > 0) {
				t.Errorf("client received %d RNR NAKs, want some = %v", rnrNAKs, tt.rnrNAKs)
			}
			for name, nic := range map[string]verbs.Provider{"server": p.srvNIC, "client": p.cliNIC} {
				if live := nic.Live(); live.Total() != 0 {
					t.Errorf("%s leaked %+v", name, live)
				}
			}
		})
	}
}

func TestLessonsHaveTitlesAndUniqueNames(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range steps.Lessons() {
		if seen[l.Name] || l.Title.EN == "" || l.Title.ZH == "" || l.Summary.EN == "" || l.Summary.ZH == "" {
			t.Errorf("lesson %+v: duplicate name or missing text", l)
		}
		seen[l.Name] = true
		for _, text := range []string{l.Title.EN, l.Title.ZH, l.Summary.EN, l.Summary.ZH} {
			if strings.Contains(text, "`") || strings.Contains(text, "**") || strings.Contains(text, "](") {
				t.Errorf("lesson %s: %q has Markdown; titles and summaries are shown as plain text", l.Name, text)
			}
		}
	}
	if _, err := steps.LessonByName("nope"); err == nil {
		t.Error("unknown lesson accepted")
	}
}

// wireLessons is, for the lessons that lose packets, how many of the
// client's packets the wire lost and how many it sent again: lost-write
// resends the lost packet and the one after it (go-back-N); lost-ack
// resends the WRITE once; peer-vanished loses the WRITE and its three
// retries (retry_count 3); retry-zero loses the WRITE and resends nothing.
var wireLessons = map[string][2]int{"lost-write": {1, 2}, "lost-ack": {0, 1}, "peer-vanished": {4, 3}, "retry-zero": {1, 0}}

// countLostAndResent counts s's outbound packets the wire lost and those
// that were retransmissions.
func countLostAndResent(s *steps.Session) (lost, again int) {
	for _, pkt := range s.Snapshot().Packets {
		if pkt.Outbound && pkt.Lost {
			lost++
		}
		if pkt.Outbound && pkt.Retransmit {
			again++
		}
	}
	return lost, again
}

func countRNRNAKs(s *steps.Session) int {
	n := 0
	for _, pkt := range s.Snapshot().Packets {
		if !pkt.Outbound && pkt.AETH != nil && pkt.AETH.Syndrome&0xE0 == verbs.SyndromeRNRNAKBase {
			n++
		}
	}
	return n
}
