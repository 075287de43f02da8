package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// lessonErrors are the exact error strings each lesson must show, on the
// simulated NIC and on real Soft-RoCE alike.
var lessonErrors = []lessonError{
	{"no-recv", nil, []string{`SEND completion: status "RNR retry counter exceeded"`}},
	{"no-recv", []string{"--rnr-retry", "7"}, []string{"[server] RDMA-written buffer: "}},
	{"bad-rkey", nil, []string{`RDMA_WRITE completion: status "remote access error"`, `SEND completion: status "Work Request Flushed Error"`}},
	{"out-of-bounds", nil, []string{`RDMA_WRITE completion: status "remote access error"`, `SEND completion: status "Work Request Flushed Error"`}},
	{"no-remote-write", nil, []string{`RDMA_WRITE completion: status "remote access error"`}},
	{"htonl-address", nil, []string{`RDMA_WRITE completion: status "remote access error"`}},
	{"post-before-connect", nil, []string{"ibv_post_send: invalid argument (errno 22 EINVAL)", "[server] RDMA-written buffer: "}},
	{"doorbell-ordering", nil, []string{"learned of the write via doorbell"}},
	{"never-signaled", nil, []string{"/* = 0, each of 15 times: batch 2, wr_id 1100..1114 */", "returned = 30 posts into 15 slots", "[server] RDMA-written buffer: hello from rdmatour"}},
	{"signal-every-nth", nil, []string{"/* = 0: wr_id 2007 unsignaled; outstanding 7 of 7 */", "retires wr_id 2001..2004, outstanding 3 */", "completions polled = 3, wr_id [2004 2008 2012]", "[server] RDMA-written buffer: hello from rdmatour"}},
	{"inline-too-big", nil, []string{"ibv_post_send: invalid argument (errno 22 EINVAL)", "Nothing to poll: ibv_post_send refused the WRITE", "[server] learned of the write via send"}},
	// The lesson's fix: room for the message, and it goes inline.
	{"inline-too-big", []string{"--edit", "client:create-qp.max_inline_data=64"}, []string{"IBV_SEND_SIGNALED | IBV_SEND_INLINE", "[server] RDMA-written buffer: hello from rdmatour"}},
	{"wrong-gid-index", nil, []string{"sgid_index 0 is fe80::", "[server] RDMA-written buffer: "}},
	{"rtr-mask", nil, []string{"INIT → RTR requires IBV_QP_AV in the mask", "[server] RDMA-written buffer: "}},
	{"path-mtu-mismatch", nil, []string{`RDMA_WRITE completion: status "remote invalid request error"`, `SEND completion: status "Work Request Flushed Error"`}},
	{"recover-qp", nil, []string{`RDMA_WRITE completion: status "remote access error"`, "the notification's RECV completion: status \"Work Request Flushed Error\"", "[server] RDMA-written buffer: hello from rdmatour"}},
	{"recover-one-side", nil, []string{`status "transport retry counter exceeded" (wr_id 300)`}},
	{"lost-wakeup", nil, []string{"ibv_get_cq_event(channel, &ev_cq, &ev_ctx); /* = no event in 3s: asleep with a completion in the CQ", "[server] RDMA-written buffer: "}},
}

type lessonError struct {
	lesson string
	extra  []string
	want   []string
}

// realLessonShare is the lessons one of the two ways of running them on
// rxe takes (way 0: one demo process, way 1: server and client
// processes). With RDMATOUR_REAL_LESSONS=split (scripts/realverbs.sh, for
// CI's time) the ways take turns down the table, so each lesson still
// runs on rxe once and both ways run; otherwise each way runs them all
// (11 s a lesson in the guest under TCG, measured 2026-12-02).
func realLessonShare(way int) []lessonError {
	if os.Getenv("RDMATOUR_REAL_LESSONS") != "split" {
		return lessonErrors
	}
	var share []lessonError
	turn := 0
	for _, l := range lessonErrors {
		switch {
		case l.oneProcessOnly():
			if way == 0 {
				share = append(share, l)
			}
			continue
		case turn%2 == way:
			share = append(share, l)
		}
		turn++
	}
	return share
}

// oneProcessOnly: the row's --edit names one side's step, which only the
// demo (both sides in one process) can take for both.
func (l lessonError) oneProcessOnly() bool { return slices.Contains(l.extra, "--edit") }

// runLessons runs each lesson as `rdmatour demo --lesson` with the given
// backend flags and checks the errors it prints.
func runLessons(t *testing.T, lessons []lessonError, backend ...string) {
	for _, tt := range lessons {
		t.Run(tt.lesson+strings.Join(tt.extra, ""), func(t *testing.T) {
			args := append([]string{"demo", "--lesson", tt.lesson, "--port", freePort(t), "--plain", "--auto", "--timeout", "30s"}, backend...)
			p := start(t, nil, append(args, tt.extra...)...)
			if code := p.wait(t, 120*time.Second); code != 0 {
				t.Fatalf("exit %d:\n%s", code, p.out)
			}
			out := p.out.String()
			for _, want := range tt.want {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(out, "tour complete") {
				t.Errorf("the lesson did not run to the end:\n%s", out)
			}
		})
	}
}

func TestLessonsOnSimulatedNICAsProcess(t *testing.T) {
	runLessons(t, lessonErrors, "--backend", "sim")
}

func TestRealLessons(t *testing.T) {
	addr := realAddr(t)
	runLessons(t, realLessonShare(0), "--backend", "rdma", "--bind", addr)
}

// The manual QP track, every notify mode, as one process per side.
func TestManualTrackAsProcesses(t *testing.T) {
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run(notify, func(t *testing.T) {
			runManual(t, notify, "--backend", "sim")
		})
	}
}

func TestRealManualTrack(t *testing.T) {
	addr := realAddr(t)
	modes := []string{"send", "doorbell", "imm"}
	if os.Getenv("RDMATOUR_REAL_LESSONS") == "split" {
		// CI: steps' TestManualTourOnRealVerbs runs the three on rxe in
		// one process (10 s); as a demo process, imm alone (13 s a mode).
		modes = []string{"imm"}
	}
	for _, notify := range modes {
		t.Run(notify, func(t *testing.T) {
			out := runManual(t, notify, "--backend", "rdma", "--bind", addr)
			if notify == "imm" {
				runRealTools(t, out)
			}
		})
	}
}

func runManual(t *testing.T, notify string, backend ...string) string {
	t.Helper()
	args := append([]string{"demo", "--track", "manual", "--notify", notify, "--port", freePort(t), "--plain", "--auto", "--timeout", "30s"}, backend...)
	p := start(t, nil, args...)
	if code := p.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out)
	}
	out := p.out.String()
	for _, want := range []string{"ibv_create_qp(", "ibv_modify_qp(", "rdma_init_qp_attr(", "QP state = RTS", "[server] RDMA-written buffer: ", "learned of the write via " + notify, "tour complete"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	return out
}

// Split for CI, the two ways still run every lesson on rxe, once.
func TestRealLessonShareCoversEveryLessonOnce(t *testing.T) {
	t.Setenv("RDMATOUR_REAL_LESSONS", "split")
	seen := map[string]int{}
	for way := 0; way < 2; way++ {
		share := realLessonShare(way)
		if len(share) == 0 {
			t.Errorf("way %d runs no lesson", way)
		}
		for _, l := range share {
			if way == 0 || !l.oneProcessOnly() { // what runLessonPairs runs
				seen[l.lesson+strings.Join(l.extra, " ")]++
			}
		}
	}
	for _, l := range lessonErrors {
		if n := seen[l.lesson+strings.Join(l.extra, " ")]; n != 1 {
			t.Errorf("%s %v runs %d times split, want once", l.lesson, l.extra, n)
		}
	}
}
