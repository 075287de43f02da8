package main

import (
	"strings"
	"testing"
	"time"
)

// lessonErrors are the exact error strings each lesson must show, on the
// simulated NIC and on real Soft-RoCE alike.
var lessonErrors = []struct {
	lesson string
	extra  []string
	want   []string
}{
	{"no-recv", nil, []string{`SEND completion: status "RNR retry counter exceeded"`}},
	{"no-recv", []string{"--rnr-retry", "7"}, []string{"[server] RDMA-written buffer: "}},
	{"bad-rkey", nil, []string{`RDMA_WRITE completion: status "remote access error"`, `SEND completion: status "Work Request Flushed Error"`}},
	{"out-of-bounds", nil, []string{`RDMA_WRITE completion: status "remote access error"`, `SEND completion: status "Work Request Flushed Error"`}},
	{"no-remote-write", nil, []string{`RDMA_WRITE completion: status "remote access error"`}},
	{"htonl-address", nil, []string{`RDMA_WRITE completion: status "remote access error"`}},
	{"post-before-connect", nil, []string{"ibv_post_send: invalid argument (errno 22 EINVAL)", "[server] RDMA-written buffer: "}},
	{"doorbell-ordering", nil, []string{"learned of the write via doorbell"}},
	{"wrong-gid-index", nil, []string{"sgid_index 0 is fe80::", "[server] RDMA-written buffer: "}},
	{"rtr-mask", nil, []string{"INIT → RTR requires IBV_QP_AV in the mask", "[server] RDMA-written buffer: "}},
	{"path-mtu-mismatch", nil, []string{`RDMA_WRITE completion: status "remote invalid request error"`, `SEND completion: status "Work Request Flushed Error"`}},
	{"lost-wakeup", nil, []string{"ibv_get_cq_event(channel, &ev_cq, &ev_ctx); /* = no event in 3s: asleep with a completion in the CQ", "[server] RDMA-written buffer: "}},
}

// runLessons runs every lesson as `rdmatour demo --lesson` with the given
// backend flags and checks the errors it prints.
func runLessons(t *testing.T, backend ...string) {
	for _, tt := range lessonErrors {
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
	runLessons(t, "--backend", "sim")
}

func TestRealLessons(t *testing.T) {
	addr := realAddr(t)
	runLessons(t, "--backend", "rdma", "--bind", addr)
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
	for _, notify := range []string{"send", "doorbell", "imm"} {
		t.Run(notify, func(t *testing.T) {
			runManual(t, notify, "--backend", "rdma", "--bind", addr)
		})
	}
}

func runManual(t *testing.T, notify string, backend ...string) {
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
}
