package explain

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
)

// reading is a meaning as a test names it: "wc.status 12 IBV_WC_RETRY_EXC_ERR".
func reading(m Meaning) string { return m.Kind.Label().EN + " " + number(m) + " " + m.Name }

// TestExplain: each way a learner writes a code finds every reading of
// it, and only those.
func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"12", []string{"errno 12 ENOMEM", "wc.status 12 IBV_WC_RETRY_EXC_ERR", "CM event 12 RDMA_CM_EVENT_MULTICAST_JOIN", "event->status 12 IB_CM_REJ_INVALID_GID"}},
		{"ENOMEM", []string{"errno 12 ENOMEM"}},
		{"enomem", []string{"errno 12 ENOMEM"}},
		{"errno 12", []string{"errno 12 ENOMEM"}},
		{"Cannot allocate memory", []string{"errno 12 ENOMEM"}},
		{"IBV_WC_RETRY_EXC_ERR", []string{"wc.status 12 IBV_WC_RETRY_EXC_ERR"}},
		{"RETRY_EXC_ERR", []string{"wc.status 12 IBV_WC_RETRY_EXC_ERR"}},
		{"transport retry counter exceeded", []string{"wc.status 12 IBV_WC_RETRY_EXC_ERR"}},
		{"  Transport  retry counter EXCEEDED ", []string{"wc.status 12 IBV_WC_RETRY_EXC_ERR"}},
		{"wc.status 13", []string{"wc.status 13 IBV_WC_RNR_RETRY_EXC_ERR"}},
		{"RDMA_CM_EVENT_REJECTED", []string{"CM event 8 RDMA_CM_EVENT_REJECTED"}},
		{"REJECTED", []string{"CM event 8 RDMA_CM_EVENT_REJECTED"}},
		{"status 28", []string{"event->status 28 IB_CM_REJ_CONSUMER_DEFINED"}},
		{"status 8", []string{"event->status 8 IB_CM_REJ_INVALID_SERVICE_ID"}},
		{"-110", []string{"event->status -110 -ETIMEDOUT"}},
		{"0x60", []string{"AETH syndrome 0x60 NAK PSN sequence error"}},
		{"0x62", []string{"AETH syndrome 0x62 NAK remote access error"}},
		{"NAK remote access", []string{"AETH syndrome 0x62 NAK remote access error"}},
		{"0x2c", []string{"AETH syndrome 0x2C RNR NAK (timer 12)"}},
		{"RNR NAK", []string{"AETH syndrome 0x20 RNR NAK (timer 0)"}},
		{"remote access error", []string{"wc.status 10 IBV_WC_REM_ACCESS_ERR"}},
		{"0", []string{"wc.status 0 IBV_WC_SUCCESS", "CM event 0 RDMA_CM_EVENT_ADDR_RESOLVED", "event->status 0 0"}},
	} {
		ms, err := Explain(tc.code)
		if err != nil {
			t.Errorf("Explain(%q): %v", tc.code, err)
			continue
		}
		var got []string
		for _, m := range ms {
			got = append(got, reading(m))
		}
		if !slices.Equal(got[:min(len(got), len(tc.want))], tc.want) || (len(tc.want) > 1 && len(got) != len(tc.want)) {
			t.Errorf("Explain(%q) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// TestHexReadsAsSyndromeFirst: 0x0c is a syndrome (an ACK with credit
// count 12) first, then whatever else 12 is.
func TestHexReadsAsSyndromeFirst(t *testing.T) {
	ms, err := Explain("0x0c")
	if err != nil || len(ms) != 5 || ms[0].Kind != KindSyndrome || ms[1].Kind != KindErrno {
		t.Fatalf("Explain(0x0c) = %+v, %v; want the syndrome, then the four other readings of 12", ms, err)
	}
	if !strings.Contains(ms[0].What.EN, "the low five bits (12) are its credit count") {
		t.Errorf("syndrome 0x0C: %q", ms[0].What.EN)
	}
}

// TestUnknownCode: a code nobody knows is a typed error with the closest
// names, and examples of what works.
func TestUnknownCode(t *testing.T) {
	for _, tc := range []struct{ code, suggests string }{
		{"IBV_WC_RETRY_EXEC_ERR", "IBV_WC_RETRY_EXC_ERR"},
		{"ENOMEN", "ENOMEM"},
		{"RDMA_CM_EVENT_REJECT", "RDMA_CM_EVENT_REJECTED"},
		{"hello", ""},
		{"999999", ""},
		{"status 999", ""},
	} {
		_, err := Explain(tc.code)
		var ue *UnknownCodeError
		if !errors.As(err, &ue) {
			t.Errorf("Explain(%q): %v, want an *UnknownCodeError", tc.code, err)
			continue
		}
		if tc.suggests != "" && (len(ue.Suggestions) == 0 || ue.Suggestions[0] != tc.suggests) {
			t.Errorf("Explain(%q) suggests %q, want %s first", tc.code, ue.Suggestions, tc.suggests)
		}
		if !strings.Contains(err.Error(), "examples: ENOMEM") {
			t.Errorf("Explain(%q): %q gives no examples", tc.code, err)
		}
	}
}

// TestEveryCauseNamesARealLesson: a cause's lesson is in the steps
// registry, and every lesson whose mistake ends in a status or errno is
// named by some cause.
func TestEveryCauseNamesARealLesson(t *testing.T) {
	named := map[string]bool{}
	for _, table := range [][]entry{wcStatuses, errnos, cmEvents, rejectCauses, syndromes, {{causes: rnrCauses}}} {
		for _, e := range table {
			for _, c := range e.causes {
				if c.Lesson == "" {
					continue
				}
				named[c.Lesson] = true
				if _, err := steps.LessonByName(c.Lesson); err != nil {
					t.Errorf("entry %d names lesson %q: %v", e.n, c.Lesson, err)
				}
			}
		}
	}
	for _, l := range steps.Lessons() {
		// doorbell-ordering and lost-ack are explanations, not errors (a
		// lost ACK costs a timeout and nothing else).
		if !named[l.Name] && l.Name != "doorbell-ordering" && l.Name != "lost-ack" {
			t.Errorf("lesson %s reproduces an error no cause points to", l.Name)
		}
	}
}

// TestEveryNumberedNameIsExplained: every wc.status and CM event verbs
// names has a reading whose name is verbs'; every syndrome and every
// table row has both languages.
func TestEveryNumberedNameIsExplained(t *testing.T) {
	for n := 0; n < wcStatusCount; n++ {
		m, ok := wcStatusMeaning(n)
		if !ok || m.Name != verbs.WCStatus(n).CName() || m.Printed != verbs.WCStatus(n).String() || m.What.EN == "" {
			t.Errorf("wc.status %d: %+v", n, m)
		}
	}
	for n := 0; n < cmEventCount; n++ {
		m, ok := cmEventMeaning(n)
		if !ok || m.Name != verbs.CMEventType(n).String() || !m.What.Bilingual() {
			t.Errorf("CM event %d: %+v", n, m)
		}
	}
	for n := 0; n <= 0xFF; n++ {
		if m, ok := syndromeMeaning(n); !ok || !m.What.Bilingual() {
			t.Errorf("syndrome 0x%02X: %+v", n, m)
		}
	}
	for _, table := range [][]entry{wcStatuses, errnos, cmEvents, rejectCauses, {{what: text.Same("x"), causes: rnrCauses}}} {
		for _, e := range table {
			if e.what.EN != "x" && !e.what.Bilingual() {
				t.Errorf("entry %d: %q has no Chinese", e.n, e.what.EN)
			}
			for _, c := range e.causes {
				if !c.Why.Bilingual() {
					t.Errorf("entry %d: cause %q has no Chinese", e.n, c.Why.EN)
				}
			}
		}
	}
}

// TestPrintSaysTheCQEFieldsAndTheLesson: a wc.status reading says which
// CQE fields are valid on error and vendor_err; a cause with a lesson
// gives the command; both languages are printed for --lang both.
func TestPrintSaysTheCQEFieldsAndTheLesson(t *testing.T) {
	ms, _ := Explain("IBV_WC_REM_ACCESS_ERR")
	var out bytes.Buffer
	if err := Print(&out, "IBV_WC_REM_ACCESS_ERR", ms, text.Both); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"only wr_id, status, qp_num and vendor_err are valid (ibv_poll_cq(3))",
		"vendor_err is the device's own error syndrome",
		"rdmatour demo --lesson bad-rkey (WRITE with the wrong rkey)",
		"只有 wr_id、status、qp_num 和 vendor_err 有效",
		"亲眼看看：rdmatour demo --lesson no-remote-read",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	ms, _ = Explain("12")
	out.Reset()
	_ = Print(&out, "12", ms, text.EN)
	if !strings.HasPrefix(out.String(), "12 has 4 readings; which one it is depends on where you saw it:") {
		t.Errorf("an ambiguous number does not say so first:\n%s", out.String())
	}
}
