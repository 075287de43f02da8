package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestUDTourTwoProcesses runs `--tour ud` as two processes on the
// simulated NIC. The client stops before its second SEND until the
// server has posted its RECV (what a learner at the other keyboard does):
// the first datagram is dropped, the second arrives behind the GRH.
func TestUDTourTwoProcesses(t *testing.T) {
	port := freePort(t)
	common := []string{"--port", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "20s", "--tour", "ud"}
	srv := start(t, nil, append([]string{"server"}, common...)...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 20*time.Second)
	msg := "hello over UD from the process test"
	cli := start(t, nil, append([]string{"client", "127.0.0.1", "--pause-at", "ud-send", "--message", msg}, common...)...)
	srv.waitFor(t, "arrived with no RECV posted: dropped", 30*time.Second)
	fmt.Fprintln(cli.stdin) // the server's RECV is posted: send the message
	if code := cli.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"message (recv_buf + 40) = " + msg, "src_qp = 0x", "wc_flags = IBV_WC_GRH", "byte_len = 76 = 40 (GRH) + 36"} {
		if !strings.Contains(out, want) {
			t.Errorf("server output lacks %q:\n%s", want, out)
		}
	}
	if c := cli.out.String(); strings.Count(c, ".status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND") != 2 {
		t.Errorf("client: want two successful UD SEND completions:\n%s", c)
	}
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
