package main

import (
	"strings"
	"testing"
	"time"
)

// pairOut is what a server and a client process printed.
type pairOut struct {
	srv, cli         string
	srvCode, cliCode int
}

// runPair starts `rdmatour server` with srvExtra and `rdmatour client`
// with cliExtra, both --plain --auto on the given backend (bind: the
// server's --bind, if any), and waits for both.
func runPair(t *testing.T, host, bind string, srvExtra, cliExtra []string, backend ...string) pairOut {
	t.Helper()
	port := freePort(t)
	common := append([]string{"--plain", "--brief", "--auto", "--timeout", "30s"}, backend...)
	srvArgs := append([]string{"server", "--port", port}, common...)
	if bind != "" {
		srvArgs = append(srvArgs, "--bind", bind)
	}
	srv := start(t, nil, append(srvArgs, srvExtra...)...)
	srv.waitFor(t, "rdma_listen(listener, 1); /* = 0 */", 30*time.Second)
	cli := start(t, nil, append(append([]string{"client", host, port}, common...), cliExtra...)...)
	var o pairOut
	o.cliCode = cli.wait(t, 120*time.Second)
	if o.cliCode != 0 {
		t.Logf("client exit %d:\n%s", o.cliCode, cli.out)
	}
	select {
	case <-srv.done:
	case <-time.After(90 * time.Second):
		// The client's failure is then the reason: show both.
		t.Fatalf("the server did not finish; client (exit %d):\n%s\nserver:\n%s", o.cliCode, cli.out, srv.out)
	}
	o.srvCode = srv.wait(t, time.Second)
	o.srv, o.cli = srv.out.String(), cli.out.String()
	return o
}

// Every lesson as two --auto processes: the no-recv lesson used to miss
// its RNR here, because nothing held the server's late RECV back.
func TestLessonsAsTwoProcesses(t *testing.T) {
	runLessonPairs(t, lessonErrors, "127.0.0.1", "", "--backend", "sim")
}

func TestRealLessonsAsTwoProcesses(t *testing.T) {
	addr := realAddr(t)
	runLessonPairs(t, realLessonShare(1), addr, addr, "--backend", "rdma")
}

func runLessonPairs(t *testing.T, lessons []lessonError, host, bind string, backend ...string) {
	for _, tt := range lessons {
		if tt.oneProcessOnly() {
			continue // an edit names one side's step: the demo runs it (lesson_test.go)
		}
		t.Run(tt.lesson+strings.Join(tt.extra, ""), func(t *testing.T) {
			args := append([]string{"--lesson", tt.lesson}, tt.extra...)
			o := runPair(t, host, bind, args, args, backend...)
			if o.srvCode != 0 || o.cliCode != 0 {
				t.Fatalf("exit server %d client %d\nserver:\n%s\nclient:\n%s", o.srvCode, o.cliCode, o.srv, o.cli)
			}
			both := o.srv + o.cli
			for _, want := range tt.want {
				if !strings.Contains(both, want) {
					t.Errorf("output lacks %q\nserver:\n%s\nclient:\n%s", want, o.srv, o.cli)
				}
			}
			for side, out := range map[string]string{"server": o.srv, "client": o.cli} {
				if strings.Contains(out, "but the call succeeded") || strings.Contains(out, "Mismatch") {
					t.Errorf("%s missed the lesson or saw a mismatch:\n%s", side, out)
				}
				if !strings.Contains(out, "peer runs = --lesson "+tt.lesson) {
					t.Errorf("%s does not say the peer runs lesson %s:\n%s", side, tt.lesson, out)
				}
			}
			if tt.lesson == "no-recv" && !strings.Contains(o.srv, "RNR NAK seen first = send_rnr_err") {
				t.Errorf("the server's late RECV did not wait for its RNR NAK:\n%s", o.srv)
			}
		})
	}
}

// A lesson given to one side only: both sides say so, and the plain side
// does not end in a bare ERROR.
func TestLessonMismatchAsProcesses(t *testing.T) {
	cases := []struct {
		name               string
		srvArgs, cliArgs   []string
		srvWants, cliWants []string
	}{
		{"client lesson, plain server", nil, []string{"--lesson", "bad-rkey"},
			[]string{"Mismatch: the client runs lesson bad-rkey, this side runs the plain tour", "from the client's lesson bad-rkey (this side runs the plain tour)"},
			[]string{"Mismatch: the server runs the plain tour, this side runs lesson bad-rkey", `status "remote access error"`}},
		{"server lesson, plain client", []string{"--lesson", "no-remote-write"}, nil,
			[]string{"Mismatch: the client runs the plain tour, this side runs lesson no-remote-write"},
			[]string{"Mismatch: the server runs lesson no-remote-write", "from the server's lesson no-remote-write (this side runs the plain tour)", `status "remote access error"`}},
		{"different lessons", []string{"--lesson", "no-recv"}, []string{"--lesson", "bad-rkey"},
			[]string{"Mismatch: the client runs lesson bad-rkey, this side runs lesson no-recv"},
			[]string{"Mismatch: the server runs lesson no-recv, this side runs lesson bad-rkey"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := runPair(t, "127.0.0.1", "", tc.srvArgs, tc.cliArgs, "--backend", "sim")
			for side, c := range map[string]struct {
				out   string
				wants []string
			}{"server": {o.srv, tc.srvWants}, "client": {o.cli, tc.cliWants}} {
				for _, want := range c.wants {
					if !strings.Contains(c.out, want) {
						t.Errorf("%s lacks %q:\n%s", side, want, c.out)
					}
				}
				for _, line := range strings.Split(c.out, "\n") {
					if strings.Contains(line, "ERROR:") && !strings.Contains(line, "Mismatch") {
						t.Errorf("%s shows an error that does not explain the mismatch: %s", side, line)
					}
				}
			}
		})
	}
}
