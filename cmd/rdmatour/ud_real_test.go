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
	t.Logf("exported server:\n%s", srv.out)
}
