package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ran is a finished rdmatour process: stdout and stderr apart, so the
// replay's stdout can be compared with the live one byte for byte.
type ran struct {
	stdout, stderr string
	code           int
}

// runBin runs the binary to the end (at most a minute).
func runBin(t *testing.T, args ...string) ran {
	t.Helper()
	return waitBin(t, startBin(t, args...))
}

type binProc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer // read while the process runs
}

func startBin(t *testing.T, args ...string) *binProc {
	t.Helper()
	p := &binProc{cmd: exec.Command(binPath, args...)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.Env = append(os.Environ(), "LANG=C")
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

func waitBin(t *testing.T, p *binProc) ran {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not exit within a minute:\n%s%s", p.cmd.Args, p.stdout.String(), p.stderr.String())
	}
	r := ran{stdout: p.stdout.String(), stderr: p.stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameAsLive replays file with show (the display flags the live run
// used) and compares everything the learner saw.
func sameAsLive(t *testing.T, live ran, file string, show ...string) {
	t.Helper()
	re := runBin(t, append([]string{"replay", "--plain", file}, show...)...)
	if re.code != live.code || re.stderr != live.stderr {
		t.Errorf("replay of %s: exit %d, stderr %q; live: exit %d, stderr %q", filepath.Base(file), re.code, re.stderr, live.code, live.stderr)
	}
	if re.stdout != live.stdout {
		t.Errorf("replay of %s prints differently from the live run:\n%s", filepath.Base(file), firstDiff(live.stdout, re.stdout))
	}
}

// firstDiff shows the first line where two outputs differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  live:   " + wl + "\n  replay: " + gl
		}
	}
	return "(same lines)"
}

// TestReplayEqualsLivePlainOutput records a server and a client (two
// processes on the simulated NIC) and a demo, then replays each file with
// --plain: stdout, stderr and the exit status must be what the live run
// printed, to the byte.
func TestReplayEqualsLivePlainOutput(t *testing.T) {
	cases := []struct {
		name string
		tour []string // flags both sides get
		show []string // display flags, given to the replay too
	}{
		{"send", []string{"--notify", "send"}, nil},
		{"imm-brief-zh", []string{"--notify", "imm"}, []string{"--brief", "--lang", "zh"}},
		{"lesson-bad-rkey", []string{"--lesson", "bad-rkey"}, []string{"--lang", "both"}},
		{"manual-doorbell", []string{"--track", "manual", "--notify", "doorbell"}, []string{"--brief"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			port := freePort(t)
			srvFile, cliFile := filepath.Join(dir, "server.jsonl"), filepath.Join(dir, "client.jsonl")
			common := append(append([]string{"--port", port, "--backend", "sim", "--plain", "--auto"}, tc.tour...), tc.show...)
			srv := startBin(t, append(append([]string{"server"}, common...), "--record", srvFile)...)
			waitListening(t, srv)
			cli := runBin(t, append(append([]string{"client", "127.0.0.1"}, common...), "--record", cliFile)...)
			live := waitBin(t, srv)
			if live.code != 0 || cli.code != 0 {
				t.Fatalf("live run failed: server %d %s, client %d %s", live.code, live.stderr, cli.code, cli.stderr)
			}
			sameAsLive(t, live, srvFile, tc.show...)
			sameAsLive(t, cli, cliFile, tc.show...)
			demo := runBin(t, append([]string{"replay", "--plain", srvFile, cliFile}, tc.show...)...)
			if demo.code != 0 || !strings.Contains(demo.stdout, "rdmatour demo") {
				t.Errorf("the two files as a demo: exit %d %s\n%s", demo.code, demo.stderr, demo.stdout)
			}
		})
	}
}

// waitListening waits until the server's plain output shows rdma_listen.
func waitListening(t *testing.T, p *binProc) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(p.stdout.String(), "rdma_listen(listener, 1); /* = 0 */") {
			return
		}
	}
	t.Fatal("the server did not reach rdma_listen")
}
