package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
)

// TestWorkshopClassVotes is the class: a room on the simulated
// NIC runs lesson bad-rkey; 30 attendees start plain `rdmatour client`
// (no --lesson: they follow the room's plan), each answering a scripted
// --predict; the instructor reveals, opens a revote, the 30 run again
// with their second answers, and the results file holds each run with
// the name's first and second predictions and what happened, row by row;
// quit prints the misconceptions with their counts.
func TestWorkshopClassVotes(t *testing.T) {
	if testing.Short() {
		t.Skip("60 client processes")
	}
	const n = 30
	l, _ := steps.LessonByName("bad-rkey")
	_, choices := l.AttendeeQuestion()
	success, access := choiceNumber(t, choices, "IBV_WC_SUCCESS"), choiceNumber(t, choices, "IBV_WC_REM_ACCESS_ERR")
	first := func(i int) int { // a third see it coming
		if i%3 == 0 {
			return access
		}
		return success
	}
	dir := t.TempDir()
	results := filepath.Join(dir, "class.csv")
	port := freePort(t)
	srv := start(t, nil, "server", port, "--workshop", "--plain", "--backend", "sim", "--lesson", "bad-rkey", "--max-attendees", "40", "--results", results)
	srv.waitFor(t, "--tour write --lesson bad-rkey for every attendee", 60*time.Second)
	classRound(t, port, n, first)
	srv.waitFor(t, fmt.Sprintf("(round 1: %d answered)", n), 30*time.Second)
	if strings.Contains(srv.out.String(), "█") {
		t.Fatalf("the picks showed before the reveal:\n%s", srv.out)
	}
	io.WriteString(srv.stdin, "reveal\n")
	srv.waitFor(t, "happened (the server's view of each QP)", 10*time.Second)
	// choice, first votes, second votes, what happened
	tallyRow(t, srv, success, fmt.Sprintf("██████ %d 0 0 IBV_WC_SUCCESS", n-n/3))
	tallyRow(t, srv, access, fmt.Sprintf("██████ %d 0 ██████ %d IBV_WC_REM_ACCESS_ERR", n/3, n))
	io.WriteString(srv.stdin, "revote\n")
	srv.waitFor(t, "revote: round 2", 10*time.Second)
	classRound(t, port, n, func(int) int { return access })
	srv.waitFor(t, fmt.Sprintf("(round 2: %d answered)", n), 30*time.Second)
	io.WriteString(srv.stdin, "results\n")
	srv.waitFor(t, fmt.Sprintf("%d attendees' results in %s", 2*n, results), 10*time.Second)
	io.WriteString(srv.stdin, "quit\n")
	if code := srv.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("server exit %d:\n%s", code, srv.out)
	}
	for _, want := range []string{fmt.Sprintf("%d× lesson bad-rkey: picked %s; happened %s", n-n/3, choices[success-1].EN, choices[access-1].EN),
		fmt.Sprintf("roster: %d done, 0 running, 0 stuck, 0 failed, 0 turned away", 2*n), "sent the room's plan (their client starts again with it)"} {
		if !strings.Contains(srv.out.String(), want) {
			t.Errorf("the server's output lacks %q:\n%s", want, srv.out)
		}
	}
	checkClassResults(t, results, n, choices, first, access)
}

// tallyRow checks the last revealed tally's row for choice (1-based):
// its cells, space-separated, are want.
func tallyRow(t *testing.T, srv *proc, choice int, want string) {
	t.Helper()
	srv.waitFor(t, fmt.Sprintf("[workshop] %d  ", choice), 10*time.Second)
	var got string
	for _, line := range strings.Split(srv.out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == "[workshop]" && f[1] == fmt.Sprint(choice) {
			got = strings.Join(f[2:], " ")
		}
	}
	if !strings.HasPrefix(got, want) {
		t.Errorf("tally row %d = %q, want it to start %q", choice, got, want)
	}
}

// classRound runs n attendees at once, att-00 ... with --predict pick(i),
// and checks each followed the room and was judged.
func classRound(t *testing.T, port string, n int, pick func(i int) int) {
	t.Helper()
	ps := make([]*proc, n)
	for i := range ps {
		ps[i] = start(t, nil, "client", "127.0.0.1", port, "--backend", "sim", "--plain", "--auto", "--brief", "--timeout", "60s",
			"--name", fmt.Sprintf("att-%02d", i), "--predict", fmt.Sprint(pick(i)))
	}
	for i, p := range ps {
		p.wait(t, 120*time.Second)
		out := p.out.String()
		if !strings.Contains(out, "the workshop runs --lesson bad-rkey: starting again with it") || !strings.Contains(out, "Your prediction") {
			t.Errorf("attendee %d did not follow the room and get its verdict:\n%s", i, out)
		}
	}
}

// checkClassResults reads the results CSV: 2n runs; every name has its
// first and second prediction and what happened on each of its rows.
func checkClassResults(t *testing.T, path string, n int, choices []text.Text, first func(int) int, second int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 2*n+1 {
		t.Fatalf("%d CSV records (%v), want a header and %d rows", len(recs), err, 2*n)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	runs := map[string]int{}
	for _, rec := range recs[1:] {
		name := rec[col["name"]]
		var i int
		if _, err := fmt.Sscanf(name, "att-%02d", &i); err != nil {
			t.Errorf("a row's name %q", name)
			continue
		}
		runs[name]++
		for c, want := range map[string]string{"lesson": "bad-rkey", "outcome": "expected error",
			"first_prediction": choices[first(i)-1].EN, "second_prediction": choices[second-1].EN, "happened": choices[second-1].EN} {
			if rec[col[c]] != want {
				t.Errorf("%s: %s = %q, want %q", name, c, rec[col[c]], want)
			}
		}
	}
	for name, k := range runs {
		if k != 2 {
			t.Errorf("%s ran %d times in the results, want 2", name, k)
		}
	}
}

func choiceNumber(t *testing.T, choices []text.Text, prefix string) int {
	t.Helper()
	for i, c := range choices {
		if strings.HasPrefix(c.EN, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no choice %s", prefix)
	return 0
}

// An attendee's --name goes into the client's config (the hello), the
// host's name when not given, never the server's; a --predict the
// lesson has no choice for is refused before anything runs.
func TestAttendeeFlags(t *testing.T) {
	o, err := parseArgs([]string{"client", "10.0.0.1", "--name", "ana", "--predict", "2"}, func(string) string { return "" }, io.Discard)
	if err != nil || o.predict != 2 || o.config(steps.Client).Name != "ana" || o.config(steps.Server).Name != "" || o.choseTour {
		t.Fatalf("parsed %+v (%v)", o.workshopOptions, err)
	}
	if o, _ := parseArgs([]string{"client", "10.0.0.1", "--lesson", "bad-rkey"}, func(string) string { return "" }, io.Discard); !o.choseTour || o.config(steps.Client).Name == "" {
		t.Errorf("--lesson: chose %v, name %q (want the host's)", o.choseTour, o.config(steps.Client).Name)
	}
	p := start(t, nil, "client", "127.0.0.1", freePort(t), "--backend", "sim", "--plain", "--lesson", "bad-rkey", "--predict", "9")
	if code := p.wait(t, 30*time.Second); code != 2 || !strings.Contains(p.out.String(), "--predict 9: choice 9: pick 1 to 4") {
		t.Errorf("--predict 9: exit %d:\n%s", code, p.out)
	}
}
