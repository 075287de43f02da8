package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorkshopPlainCommands: a plain workshop takes the instructor's
// commands on stdin. results saves the room's results (CSV and JSON
// lines, one row per attendee run, the lesson's attendee counted done
// with its expected error), an unknown command is named with the list,
// and quit ends the room with the roster and its real length.
func TestWorkshopPlainCommands(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "class.csv")
	port := freePort(t)
	srv := start(t, nil, "server", port, "--workshop", "--plain", "--backend", "sim", "--results", results)
	srv.waitFor(t, "[workshop] listening on", 60*time.Second)
	for _, args := range [][]string{{"--message", "first"}, {"--lesson", "bad-rkey"}} {
		c := start(t, nil, append([]string{"client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "60s"}, args...)...)
		c.wait(t, 60*time.Second) // the lesson's client exits 0 or 1 as its page says; the room is what is checked
	}
	srv.waitFor(t, "expected error ✓ (lesson bad-rkey)", 30*time.Second)
	io.WriteString(srv.stdin, "frobnicate\x1b[2J\n")
	srv.waitFor(t, "is not a command; the commands are lesson, reveal, revote, results, quit", 10*time.Second)
	io.WriteString(srv.stdin, "results\n")
	srv.waitFor(t, "2 attendees' results in "+results, 10*time.Second)
	io.WriteString(srv.stdin, "quit\n")
	if code := srv.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	out := srv.out.String()
	for _, want := range []string{"roster: 2 done, 0 running, 0 stuck, 0 failed", "ended after ", "live objects left = 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the server did not print %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("a raw escape reached the output:\n%q", out)
	}
	f, err := os.Open(results)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d CSV records (%v), want a header and 2 rows", len(recs), err)
	}
	if recs[1][5] != "finished" || recs[2][4] != "bad-rkey" || recs[2][5] != "expected error" {
		t.Errorf("rows: %q", recs[1:])
	}
	b, err := os.ReadFile(filepath.Join(dir, "class.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var first struct{ Message, Tour string }
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &first); err != nil || first.Message != "first" || first.Tour != "write" {
		t.Errorf("the first JSON line: %+v (%v)", first, err)
	}
}

// TestWorkshopResultsRefusedUpFront: a results file that cannot be
// written is refused before the room opens, with the reason.
func TestWorkshopResultsRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(dir, "missing", "r.csv"), "cannot write in"},
		{"/dev/null", "not a regular file"},
		{filepath.Join(dir, "r.jsonl"), "give the CSV's name"},
	} {
		p := start(t, nil, "server", freePort(t), "--workshop", "--plain", "--backend", "sim", "--results", tt.path)
		if code := p.wait(t, 30*time.Second); code != 2 || !strings.Contains(p.out.String(), tt.want) || strings.Contains(p.out.String(), "listening") {
			t.Errorf("--results %s: exit %d, want 2 and %q before listening:\n%s", tt.path, code, tt.want, p.out)
		}
	}
}
