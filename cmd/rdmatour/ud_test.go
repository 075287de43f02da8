package main

import (
	"strings"
	"testing"
	"time"
)

// TestUDTourTwoProcesses runs `--tour ud` as two processes on the
// simulated NIC, both --auto, ten times in a row. Nothing orders the
// client's second SEND after the server's RECV: when it is dropped too,
// the client sends again until the server's answer comes, so every run
// delivers the message and ends with the answer.
func TestUDTourTwoProcesses(t *testing.T) {
	resent := 0
	for run := range 10 {
		if udTwoProcessRun(t, run) {
			resent++
		}
	}
	t.Logf("the client sent its message again in %d of 10 runs", resent)
}

// udTwoProcessRun is one run of TestUDTourTwoProcesses; it reports
// whether the client had to send again.
func udTwoProcessRun(t *testing.T, run int) bool {
	t.Helper()
	port := freePort(t)
	common := []string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s", "--tour", "ud"}
	srv := start(t, nil, append([]string{"server"}, common...)...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
	msg := "hello over UD from the process test"
	cli := start(t, nil, append([]string{"client", "127.0.0.1", "--message", msg}, common...)...)
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("run %d: client exit %d:\n%s\nserver:\n%s", run, code, cli.out, srv.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("run %d: server exit %d:\n%s", run, code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"arrived with no RECV posted: dropped", "message (recv_buf + 40) = " + msg, "src_qp = 0x",
		"wc_flags = IBV_WC_GRH", "byte_len = 76 = 40 (GRH) + 36", "ah from the GRH: dgid = ::ffff:127.0.0.1"} {
		if !strings.Contains(out, want) {
			t.Errorf("run %d: server output lacks %q:\n%s", run, want, out)
		}
	}
	c := cli.out.String()
	if strings.Count(c, ".status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND") != 2 {
		t.Errorf("run %d: client: want two successful UD SEND completions:\n%s", run, c)
	}
	if !strings.Contains(c, "answer (recv_buf + 40) = got it") {
		t.Errorf("run %d: client shows no answer from the server:\n%s", run, c)
	}
	return !strings.Contains(c, "sent again = 0")
}

// TestUDClientAgainstWriteServer: a ud client finds no UD service behind
// a write-tour server and says what to do; the server keeps waiting.
func TestUDClientAgainstWriteServer(t *testing.T) {
	port := freePort(t)
	common := []string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s"}
	srv := start(t, nil, append([]string{"server", "--wait-client", "5s"}, common...)...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
	cli := start(t, nil, append([]string{"client", "127.0.0.1", "--tour", "ud"}, common...)...)
	if code := cli.wait(t, 60*time.Second); code != 1 {
		t.Fatalf("client exit %d, want 1:\n%s", code, cli.out)
	}
	if out := cli.out.String(); !strings.Contains(out, "the server is not running --tour ud") || !strings.Contains(out, "RDMA_CM_EVENT_UNREACHABLE") {
		t.Errorf("client output does not explain the mismatch:\n%s", out)
	}
	srv.wait(t, 60*time.Second)
}
