package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
)

// The read tour as two processes: the client prints the message the
// server put in its buffer; the server saw no completion.
func TestReadTourAsTwoProcesses(t *testing.T) {
	readTourPair(t, "127.0.0.1", "", "--backend", "sim")
}

func TestRealReadTourAsTwoProcesses(t *testing.T) {
	addr := realAddr(t)
	runRealTools(t, readTourPair(t, addr, addr, "--backend", "rdma").cli)
}

func readTourPair(t *testing.T, host, bind string, backend ...string) pairOut {
	o := runPair(t, host, bind, []string{"--tour", "read"}, []string{"--tour", "read"}, backend...)
	if o.srvCode != 0 || o.cliCode != 0 {
		t.Fatalf("exit server %d client %d\nserver:\n%s\nclient:\n%s", o.srvCode, o.cliCode, o.srv, o.cli)
	}
	for _, want := range []string{"IBV_WR_RDMA_READ", "IBV_WC_RDMA_READ", steps.ServerReadMessage, "peer runs = --tour read"} {
		if !strings.Contains(o.cli, want) {
			t.Errorf("client output lacks %q:\n%s", want, o.cli)
		}
	}
	if !strings.Contains(o.srv, "RDMA_CM_EVENT_DISCONNECTED") || strings.Contains(o.srv+o.cli, "Mismatch") {
		t.Errorf("server output:\n%s", o.srv)
	}
	return o
}

// One side on --tour read, the other on the write tour: both say what
// the mismatch does, and the client's WRITE is refused (the read tour's
// buffer allows REMOTE_READ only).
func TestTourMismatchAsProcesses(t *testing.T) {
	o := runPair(t, "127.0.0.1", "", []string{"--tour", "read"}, nil, "--backend", "sim")
	if o.cliCode == 0 || !strings.Contains(o.cli, `status "remote access error"`) {
		t.Fatalf("exit server %d client %d: the client's WRITE should fail\nserver:\n%s\nclient:\n%s", o.srvCode, o.cliCode, o.srv, o.cli)
	}
	if !strings.Contains(o.srv, "The client's WRITE fails with remote access error") || !strings.Contains(o.cli, "registers its buffer with REMOTE_READ only") {
		t.Errorf("mismatch not explained\nserver:\n%s\nclient:\n%s", o.srv, o.cli)
	}
}

// The exported read-tour programs against rdmatour, both ways.
func TestRealExportedReadTour(t *testing.T) {
	addr, dir := realAddr(t), exportDir(t)
	t.Run("exported client", func(t *testing.T) {
		port := freePort(t)
		srv := start(t, nil, "server", port, "--tour", "read", "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s")
		srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
		cli := startRaw(t, "stdbuf", "-oL", dir+"/exported-read-client", "client", addr, port)
		if code := cli.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("exported client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
		}
		if code := srv.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("rdmatour server exit %d:\n%s", code, srv.out)
		}
		if !strings.Contains(cli.out.String(), steps.ServerReadMessage) {
			t.Errorf("exported client did not print the server's message:\n%s", cli.out)
		}
	})
	t.Run("exported server", func(t *testing.T) {
		port := freePort(t)
		srv := startRaw(t, "stdbuf", "-oL", dir+"/exported-read-server", "server", port)
		srv.waitFor(t, "[server] listening on port "+port, 60*time.Second)
		cli := start(t, nil, "client", addr, port, "--tour", "read", "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s")
		if code := cli.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("rdmatour client exit %d:\n%s\nexported server:\n%s", code, cli.out, srv.out)
		}
		if code := srv.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("exported server exit %d:\n%s", code, srv.out)
		}
		if !strings.Contains(cli.out.String(), steps.ServerReadMessage) {
			t.Errorf("rdmatour client did not show the exported server's message:\n%s", cli.out)
		}
	})
}

// The atomic tour as two processes: the client sees the counter's old
// values, the server the counter after both atomics.
func TestAtomicTourAsTwoProcesses(t *testing.T) {
	atomicTourPair(t, "127.0.0.1", "", "--backend", "sim")
}

func TestRealAtomicTourAsTwoProcesses(t *testing.T) {
	addr := realAddr(t)
	runRealTools(t, atomicTourPair(t, addr, addr, "--backend", "rdma").cli)
}

func atomicTourPair(t *testing.T, host, bind string, backend ...string) pairOut {
	o := runPair(t, host, bind, []string{"--tour", "atomic"}, []string{"--tour", "atomic"}, backend...)
	if o.srvCode != 0 || o.cliCode != 0 {
		t.Fatalf("exit server %d client %d\nserver:\n%s\nclient:\n%s", o.srvCode, o.cliCode, o.srv, o.cli)
	}
	for _, want := range []string{"IBV_WR_ATOMIC_FETCH_AND_ADD", "IBV_WR_ATOMIC_CMP_AND_SWP", "old value = 40", "old value = 42", "compare held = true", "atomic_cap = IBV_ATOMIC_HCA"} {
		if !strings.Contains(o.cli, want) {
			t.Errorf("client output lacks %q:\n%s", want, o.cli)
		}
	}
	if !strings.Contains(o.srv, "counter = 1000") || !strings.Contains(o.srv, "started at = 40") {
		t.Errorf("server output lacks the counter:\n%s", o.srv)
	}
	return o
}

// The read and atomic tours' lessons as two processes: each side gets
// only --lesson (the lesson brings its tour), both exit 0, the client
// shows the measured error.
var tourLessonErrors = []struct{ lesson, want string }{
	{"no-remote-read", "remote access error"},
	{"read-depth-zero", "remote invalid request error"},
	{"atomic-unaligned", "invalid argument (errno 22 EINVAL)"},
	{"no-remote-atomic", "remote access error"},
}

func TestTourLessonsAsTwoProcesses(t *testing.T) {
	tourLessonPairs(t, "127.0.0.1", "", "--backend", "sim")
}

func TestRealTourLessonsAsTwoProcesses(t *testing.T) {
	addr := realAddr(t)
	tourLessonPairs(t, addr, addr, "--backend", "rdma")
}

func tourLessonPairs(t *testing.T, host, bind string, backend ...string) {
	for _, tt := range tourLessonErrors {
		t.Run(tt.lesson, func(t *testing.T) {
			args := []string{"--lesson", tt.lesson}
			o := runPair(t, host, bind, args, args, backend...)
			if o.srvCode != 0 || o.cliCode != 0 {
				t.Fatalf("exit server %d client %d\nserver:\n%s\nclient:\n%s", o.srvCode, o.cliCode, o.srv, o.cli)
			}
			if !strings.Contains(o.cli, tt.want) || strings.Contains(o.srv+o.cli, "Mismatch") {
				t.Errorf("client lacks %q (or a mismatch was seen)\nserver:\n%s\nclient:\n%s", tt.want, o.srv, o.cli)
			}
		})
	}
}

// The exported atomic-tour programs against rdmatour, both ways.
func TestRealExportedAtomicTour(t *testing.T) {
	addr, dir := realAddr(t), exportDir(t)
	t.Run("exported client", func(t *testing.T) {
		port := freePort(t)
		srv := start(t, nil, "server", port, "--tour", "atomic", "--bind", addr, "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s")
		srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 60*time.Second)
		cli := startRaw(t, "stdbuf", "-oL", dir+"/exported-atomic-client", "client", addr, port)
		if code := cli.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("exported client exit %d:\n%s\nserver:\n%s", code, cli.out, srv.out)
		}
		if code := srv.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("rdmatour server exit %d:\n%s", code, srv.out)
		}
		for _, want := range []string{"[client] old value 40", "[client] old value 42"} {
			if !strings.Contains(cli.out.String(), want) {
				t.Errorf("exported client lacks %q:\n%s", want, cli.out)
			}
		}
		if !strings.Contains(srv.out.String(), "counter = 1000") {
			t.Errorf("rdmatour server lacks the counter:\n%s", srv.out)
		}
	})
	t.Run("exported server", func(t *testing.T) {
		port := freePort(t)
		srv := startRaw(t, "stdbuf", "-oL", dir+"/exported-atomic-server", "server", port)
		srv.waitFor(t, "[server] listening on port "+port, 60*time.Second)
		cli := start(t, nil, "client", addr, port, "--tour", "atomic", "--backend", "rdma", "--plain", "--auto", "--brief", "--timeout", "60s")
		if code := cli.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("rdmatour client exit %d:\n%s\nexported server:\n%s", code, cli.out, srv.out)
		}
		if code := srv.wait(t, 120*time.Second); code != 0 {
			t.Fatalf("exported server exit %d:\n%s", code, srv.out)
		}
		if !strings.Contains(srv.out.String(), "[server] counter: 1000") || !strings.Contains(cli.out.String(), "compare held = true") {
			t.Errorf("exported server:\n%s\nrdmatour client:\n%s", srv.out, cli.out)
		}
	})
}
