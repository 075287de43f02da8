package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The ud tour on Soft-RoCE (scripts/realverbs.sh runs these in the
// guest). rxe keeps no trace of a dropped datagram the server could wait
// for, so the test holds the server before its RECV (--pause-at) until
// the client's first datagram has gone, and the client before its second
// SEND until the RECV is posted: what two learners at two keyboards do.
func TestRealUDTour(t *testing.T) {
	addr := realAddr(t)
	port := freePort(t)
	common := []string{"--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s", "--tour", "ud"}
	srv := start(t, nil, append([]string{"server", port, "--bind", addr, "--pause-at", "ud-post-recv"}, common...)...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
	msg := "ud over Soft-RoCE"
	cli := start(t, nil, append([]string{"client", addr, port, "--pause-at", "ud-send", "--message", msg}, common...)...)
	cli.waitFor(t, ".wr_id = 600, .status = IBV_WC_SUCCESS", 60*time.Second)
	time.Sleep(300 * time.Millisecond) // rxe under TCG: let the datagram arrive and be dropped
	fmt.Fprintln(srv.stdin)            // post the RECV
	srv.waitFor(t, "1 RECV WQE posted", 60*time.Second)
	fmt.Fprintln(cli.stdin) // send the message
	if code := cli.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"message (recv_buf + 40) = " + msg, "wc_flags = IBV_WC_GRH", "IPv4 source → destination = " + addr + " → " + addr,
		"GRH bytes 0-19 = " + strings.TrimSpace(strings.Repeat("00 ", 20)), "rxe0", "live objects left = 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("server output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(cli.out.String(), "param.ud.qkey = 0x1234567") {
		t.Errorf("client output lacks the Q_Key:\n%s", cli.out)
	}
	runRealTools(t, cli.out.String())
}

// The exported ud server (C) against rdmatour's ud client. The exported
// program posts its RECV right after rdma_accept, so which datagram it
// gets depends on timing; either is a correct run.
func TestRealUDExportedServer(t *testing.T) {
	addr, dir := realAddr(t), exportDir(t)
	port := freePort(t)
	srv := startRaw(t, "stdbuf", "-oL", filepath.Join(dir, "exported-ud-server"), "server", port)
	srv.waitFor(t, "[server] listening on port "+port, 60*time.Second)
	cli := start(t, nil, "client", addr, port, "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s", "--tour", "ud", "--pause-at", "ud-send")
	cli.waitFor(t, ".wr_id = 600, .status = IBV_WC_SUCCESS", 60*time.Second)
	time.Sleep(300 * time.Millisecond)
	fmt.Fprintln(cli.stdin)
	if code := cli.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("exported server exit %d:\n%s", code, srv.out)
	}
	if !strings.Contains(srv.out.String(), "[server] received after the GRH: ") {
		t.Errorf("exported server did not print a datagram:\n%s", srv.out)
	}
	if !strings.Contains(cli.out.String(), "answer (recv_buf + 40) = got it") {
		t.Errorf("the exported server's answer did not reach the client:\n%s", cli.out)
	}
	t.Logf("exported server:\n%s", srv.out)
}

// TestRealUDTourNoPause: both sides --auto with nothing holding either
// one back, as TestUDTourTwoProcesses on the sim. Whether the client's
// datagrams find the server's RECV is up to timing; the client sends
// again until the server's answer comes, so the run always completes.
func TestRealUDTourNoPause(t *testing.T) {
	addr := realAddr(t)
	for run := range 3 {
		port := freePort(t)
		common := []string{"--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s", "--tour", "ud"}
		srv := start(t, nil, append([]string{"server", port, "--bind", addr}, common...)...)
		srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
		cli := start(t, nil, append([]string{"client", addr, port, "--message", "no pause on rxe"}, common...)...)
		if code := cli.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("run %d: client exit %d:\n%s\nserver:\n%s", run, code, cli.out, srv.out)
		}
		if code := srv.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("run %d: server exit %d:\n%s", run, code, srv.out)
		}
		if out := srv.out.String(); !strings.Contains(out, "ah from the GRH: dgid = ::ffff:"+addr) {
			t.Errorf("run %d: server made no address handle from the GRH:\n%s", run, out)
		}
		c := cli.out.String()
		if !strings.Contains(c, "answer (recv_buf + 40) = got it") {
			t.Errorf("run %d: no answer:\n%s", run, c)
		}
		i := strings.Index(c, "sent again = ")
		if i >= 0 {
			t.Logf("run %d: %s", run, strings.SplitN(c[i:], "\n", 2)[0])
		}
	}
}

// The exported ud client (C) against rdmatour's ud server: its
// await_reply helper sends again until the server's answer comes.
func TestRealUDExportedClient(t *testing.T) {
	addr, dir := realAddr(t), exportDir(t)
	port := freePort(t)
	srv := start(t, nil, "server", port, "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s", "--tour", "ud")
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
	cli := startRaw(t, "stdbuf", "-oL", filepath.Join(dir, "exported-ud-client"), "client", addr, port)
	if code := cli.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("exported client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
	}
	if code := srv.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	if !strings.Contains(cli.out.String(), "[client] the server answered: got it") {
		t.Errorf("exported client printed no answer:\n%s", cli.out)
	}
	t.Logf("exported client:\n%s", cli.out)
}
