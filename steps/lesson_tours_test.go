package steps_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/verbs"
)

// The read and atomic tours' lessons on two simulated NICs: each produces
// exactly the error measured on Soft-RoCE at exactly its step, the
// prediction is judged by it, and nothing else fails or leaks.
func TestTourLessonsOnSimulatedNIC(t *testing.T) {
	tests := []struct {
		lesson string
		want   map[string]string // "side/step" -> text of the expected failure
		answer string            // the client's prediction that must happen
		result string            // the client's result ("" = none)
	}{
		{"no-remote-read", map[string]string{"client/poll-read": "remote access error"}, "IBV_WC_REM_ACCESS_ERR (remote access error)", ""},
		{"read-depth-zero", map[string]string{"client/poll-read": "remote invalid request error"}, "IBV_WC_REM_INV_REQ_ERR (remote invalid request error)", ""},
		{"atomic-unaligned", map[string]string{"client/post-fetch-add": "ibv_post_send: invalid argument (errno 22 EINVAL)"}, "ibv_post_send fails with EINVAL",
			"fetch_add old=0, cmp_swap old=40"},
		{"no-remote-atomic", map[string]string{"client/poll-fetch-add": "remote access error", "client/poll-cmp-swap": "Work Request Flushed Error"},
			"IBV_WC_REM_ACCESS_ERR (remote access error)", ""},
		{"lost-read-response", map[string]string{}, "IBV_WC_SUCCESS (success)", "hello from rdmatour server, fetched by RDMA READ"},
	}
	for _, tt := range tests {
		t.Run(tt.lesson, func(t *testing.T) {
			p := newLessonPair(t, steps.NotifySend, "", tt.lesson, 0)
			pred := p.cli.Prediction()
			if pred == nil {
				t.Fatal("the client asks no prediction")
			}
			if err := p.cli.Predict(choiceIndex(t, pred, tt.answer)); err != nil {
				t.Fatal(err)
			}
			p.runTurns(t, -1)
			checkExpectedFailures(t, p, tt.want, nil)
			if pred := p.cli.Prediction(); !pred.Right() {
				t.Errorf("prediction %+v not judged right", pred)
			}
			r := p.cli.Snapshot().Result
			if (r == nil) != (tt.result == "") || (r != nil && string(r.Message) != tt.result) {
				t.Errorf("client result %+v, want %q", r, tt.result)
			}
			if pt := p.srv.PeerInfo(); pt.Hello.Lesson != tt.lesson || strings.Contains(noteOf(p.srv, "get-connect-request"), "Mismatch") {
				t.Errorf("server's view of the peer: %+v", pt)
			}
			for name, nic := range map[string]verbs.Provider{"server": p.srvNIC, "client": p.cliNIC} {
				if live := nic.Live(); live.Total() != 0 {
					t.Errorf("%s leaked %+v", name, live)
				}
			}
		})
	}
}

// checkExpectedFailures: both sides ran every step to the end, and the
// steps that failed as the lesson expects are exactly want's keys
// ("side/step-id"), each failure naming want's text in English and
// saying something in Chinese; each, if set, looks at every step too.
func checkExpectedFailures(t *testing.T, p *pair, want map[string]string, each func(key string, st steps.StepStatus)) {
	t.Helper()
	seen := 0
	for side, s := range map[string]*steps.Session{"server": p.srv, "client": p.cli} {
		if done, failed := s.Done(); !done || failed {
			t.Errorf("%s: done=%v failed=%v", side, done, failed)
		}
		for _, st := range s.Snapshot().Steps {
			key, o := side+"/"+st.ID, st.Outcome
			if o == nil {
				t.Errorf("%s did not run", key)
				continue
			}
			text, expected := want[key]
			if o.Expected != expected {
				t.Errorf("%s: expected error = %v (failure %q)", key, o.Expected, o.Failure.EN)
			}
			if expected {
				seen++
				if !strings.Contains(o.Failure.EN, text) || o.Failure.ZH == "" {
					t.Errorf("%s: failure %q lacks %q (or Chinese)", key, o.Failure.EN, text)
				}
			}
			if each != nil {
				each(key, st)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d expected errors, want %v", seen, want)
	}
}

// lost-read-response on the simulated NIC: the server's wire loses one
// response and the client asks once more, from the missing PSN (one
// READ request marked as a retransmission); the server answers it as a
// duplicate, its responses marked as sent again (verbs/sim
// TestFaultTable has the packets).
func TestLostReadResponseIsAskedAgain(t *testing.T) {
	p := newLessonPair(t, steps.NotifySend, "", "lost-read-response", 0)
	p.runTurns(t, -1)
	// The server answers the duplicate with the three responses from the
	// lost one on, each sent again.
	if lost, again := countLostAndResent(p.srv); lost != 1 || again != 3 {
		t.Errorf("server: %d packets lost, %d resent; want 1 and 3", lost, again)
	}
	if lost, again := countLostAndResent(p.cli); lost != 0 || again != 1 {
		t.Errorf("client: %d packets lost, %d resent; want 0 and 1", lost, again)
	}
	var requests []uint32
	for _, pkt := range p.cli.Snapshot().Packets {
		if pkt.Outbound && pkt.Opcode == verbs.OpRDMAReadRequest {
			requests = append(requests, pkt.PSN)
		}
	}
	if len(requests) != 2 || requests[1] != requests[0]+1 {
		t.Errorf("the client's READ requests have PSNs %v, want two, the second the first + 1 (the lost response's)", requests)
	}
	// The timeline says which READ the second request continues and how
	// long after it, an ACK timeout (about 2.1 s): not "0.0 ms after the
	// first copy", as it did when it timed the request against itself.
	var detail string
	for _, e := range p.cli.Snapshot().Timeline {
		if strings.Contains(e.Label, "RDMA_READ_REQUEST") && strings.Contains(e.Label, "↻") {
			detail = e.Detail
		}
	}
	var ms float64
	_, after, found := strings.Cut(detail, "never arrived, ")
	if _, err := fmt.Sscanf(after, "%f ms", &ms); !found || err != nil || ms < 1000 {
		t.Errorf("the resent READ request's timeline detail %q: want the READ it continues, an ACK timeout (> 1000 ms) after it", detail)
	}
}
