package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestReplayOfADemoRecording: one demo file holds both sides; it replays
// as the demo, printing what the live demo printed.
func TestReplayOfADemoRecording(t *testing.T) {
	file := filepath.Join(t.TempDir(), "demo.jsonl")
	live := runBin(t, "demo", "--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--notify", "doorbell", "--record", file)
	if live.code != 0 {
		t.Fatalf("live demo: exit %d %s", live.code, live.stderr)
	}
	sameAsLive(t, live, file)
}

// TestReplayOfAFailedTour: a server nobody connects to fails at its wait;
// the replay ends the same way — same text, same error on stderr, exit 1.
func TestReplayOfAFailedTour(t *testing.T) {
	file := filepath.Join(t.TempDir(), "alone.jsonl")
	live := runBin(t, "server", "--port", freePort(t), "--backend", "sim", "--plain", "--auto", "--wait-client", "300ms", "--record", file)
	if live.code != 1 || !strings.Contains(live.stderr, "no client connected") {
		t.Fatalf("live: exit %d %q, want a failed wait", live.code, live.stderr)
	}
	sameAsLive(t, live, file)
}

// TestRecordToAnUnwritablePath is refused before anything runs.
func TestRecordToAnUnwritablePath(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "x.jsonl")
	r := runBin(t, "demo", "--backend", "sim", "--plain", "--auto", "--record", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "--record "+bad) || strings.Contains(r.stdout, "[1/") {
		t.Errorf("exit %d, stderr %q, stdout %.100q; want exit 2 naming the file and no step run", r.code, r.stderr, r.stdout)
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

// TestReplayRecordingsFromSoftRoCE replays the files recorded on rxe0 in
// the QEMU guest (testdata/replay, with what the live run printed next to
// each) on this host, which has no RDMA: the output is the live one. Step
// titles ("[3/17] server: ...") and the lesson's title line come from
// this rdmatour's tour, which may be retitled after the recording, so
// they are left out of the comparison; every C line, result, note, state
// line and the teardown must match.
func TestReplayRecordingsFromSoftRoCE(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/replay/rxe-*.jsonl")
	if len(files) < 3 {
		t.Fatalf("the rxe recordings are missing: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			live, err := os.ReadFile(strings.TrimSuffix(f, ".jsonl") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			re := runBin(t, "replay", "--plain", "--brief", "--lang", "en", f)
			if re.code != 0 {
				t.Fatalf("replay exit %d: %s", re.code, re.stderr)
			}
			if w, g := recordedLines(string(live)), recordedLines(re.stdout); w != g {
				t.Errorf("the replay differs from the live rxe run:\n%s", firstDiff(w, g))
			}
			if !strings.Contains(re.stdout, "rxe0") {
				t.Error("the replay does not show the recorded device rxe0")
			}
		})
	}
}

// recordedLines drops the lines a replay takes from the current tour and
// the plain runner's own guidance, which later rdmatours may word
// differently: step titles, the lesson title, what a wait waits for (and
// the protocol-timer line under it), the "Try next" advice and the real
// tools' commands.
func recordedLines(out string) string {
	var keep []string
	afterWait := false
	for _, l := range strings.Split(out, "\n") {
		guidance := titleLine.MatchString(l) || strings.HasPrefix(l, "lesson ") ||
			strings.HasPrefix(l, "  … waiting") || strings.HasPrefix(strings.TrimSpace(l), "Try next") ||
			strings.HasPrefix(l, "The same with the real tools")
		if guidance || (afterWait && strings.HasPrefix(l, "    ")) || strings.TrimSpace(l) == "" {
			afterWait = afterWait || strings.HasPrefix(l, "  … waiting")
			continue
		}
		afterWait = false
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

var titleLine = regexp.MustCompile(`^\[\d+/\d+\] `)

// TestReplayBadFiles: a file that cannot be replayed is refused with its
// name and line, exit status 1; a missing file is named too.
func TestReplayBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("../../testdata/replay/rxe-send-server.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.jsonl")
	os.WriteFile(cut, good[:len(good)/2], 0o644)
	lines := bytes.Count(good[:len(good)/2], []byte("\n"))
	newer := filepath.Join(dir, "newer.jsonl")
	os.WriteFile(newer, bytes.Replace(good, []byte(`"version":1`), []byte(`"version":7`), 1), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{cut}, cut + " line " + strconv.Itoa(lines+1) + ": the line is cut off"},
		{[]string{newer}, newer + " line 1: format version 7; this rdmatour reads versions 1 to 2"},
		{[]string{filepath.Join(dir, "nope.jsonl")}, "cannot open " + filepath.Join(dir, "nope.jsonl")},
		{[]string{"../../testdata/replay/rxe-send-server.jsonl", "../../testdata/replay/rxe-lesson-server.jsonl"}, "give one server and one client recording"},
	}
	for _, tc := range cases {
		r := runBin(t, append([]string{"replay", "--plain"}, tc.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("replay %v: exit %d, stderr %q, stdout %.80q; want exit 1 and …%s…", tc.args, r.code, r.stderr, r.stdout, tc.want)
		}
	}
	if r := runBin(t, "replay"); r.code != 2 || !strings.Contains(r.stderr, "replay needs one recorded file") {
		t.Errorf("replay without a file: exit %d %q", r.code, r.stderr)
	}
}
