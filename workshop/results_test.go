package workshop_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// TestResultsFromARoom: two attendees through a room, one on the plain
// tour and one on a lesson; the results say who ran what, how far, and
// what the server saw, in CSV and in JSON lines alike.
func TestResultsFromARoom(t *testing.T) {
	r, addr := openTestRoom(t, 10, 10*time.Second)
	ctx := context.Background()
	if err := runClient(ctx, addr, steps.NotifySend, "hi\x1b[2J", "", ""); err != nil {
		t.Fatal(err)
	}
	runClient(ctx, addr, steps.NotifySend, "bad key", "bad-rkey", "") // its error is the lesson's
	waitRoster(t, r, 2)
	waitEmpty(t, r)
	results := workshop.Results(r.Roster(), steps.TourWrite, time.Now())
	if len(results) != 2 {
		t.Fatalf("%d results, want 2: %+v", len(results), results)
	}
	plain, lesson := results[0], results[1]
	if plain.Outcome != "finished" || plain.StepsRan != plain.Steps || plain.Steps == 0 || plain.Lesson != "" {
		t.Errorf("the plain tour's result: %+v", plain)
	}
	if strings.ContainsRune(plain.Message, 0x1b) || !strings.Contains(plain.Message, "hi") {
		t.Errorf("the message is not escaped: %q", plain.Message)
	}
	if lesson.Lesson != "bad-rkey" || lesson.Outcome != "expected error" || !strings.Contains(lesson.Observed, "expected error ✓") {
		t.Errorf("the lesson's result: %+v", lesson)
	}
	if plain.Arrived == "" || plain.Left == "" || plain.Tour != "write" {
		t.Errorf("times or tour missing: %+v", plain)
	}

	var c, j bytes.Buffer
	if err := workshop.WriteCSV(&c, results); err != nil {
		t.Fatal(err)
	}
	if err := workshop.WriteJSONLines(&j, results); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&c).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("CSV: %d records, %v", len(recs), err)
	}
	lines := strings.Split(strings.TrimSpace(j.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("JSON lines: %d", len(lines))
	}
	var back workshop.Result
	if err := json.Unmarshal([]byte(lines[1]), &back); err != nil || back != lesson {
		t.Errorf("JSON line 2 = %+v (%v), want %+v", back, err, lesson)
	}
	head := recs[0]
	for i, rec := range recs[1:] {
		if len(rec) != len(head) {
			t.Errorf("CSV row %d has %d fields, the header %d", i+1, len(rec), len(head))
		}
	}
}

// TestStuckAttendeeIsMarked: an attendee that stops mid-tour (it never
// posts its WRITE) is marked stuck once StuckAfter has passed, counted
// in the header, and unmarked rows say how far they got.
func TestStuckAttendeeIsMarked(t *testing.T) {
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), IdleLimit: time.Minute, StuckAfter: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(sim.Options{}),
		Server: r.ListenAddr(0), Message: "slow", Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for { // up to and including the step that connects
		out, err := s.RunNext(context.Background())
		if err != nil {
			t.Fatal(err, out.Failure)
		}
		if s.Steps()[s.Next()-1].Milestones&steps.MilestoneConnected != 0 {
			break
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for r.Counts().Stuck == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("never marked stuck: %+v", r.Roster())
		}
		time.Sleep(50 * time.Millisecond)
	}
	row := r.Roster()[0]
	if !row.Stuck || row.PhaseCell(text.EN) != "stuck" || row.Ran == 0 || row.Ran >= row.Steps {
		t.Errorf("stuck row: %+v", row)
	}
	if bar := workshop.StepBar(row.Ran, row.Steps); !strings.HasSuffix(bar, "/"+strconv.Itoa(row.Steps)) {
		t.Errorf("step bar %q", bar)
	}
}

func TestStepBar(t *testing.T) {
	for _, c := range []struct {
		ran, steps int
		want       string
	}{
		{0, 0, "-"}, {0, 18, "░░░░ 0/18"}, {9, 18, "██░░ 9/18"}, {18, 18, "████ 18/18"}, {20, 18, "████ 20/18"},
	} {
		if got := workshop.StepBar(c.ran, c.steps); got != c.want {
			t.Errorf("StepBar(%d, %d) = %q, want %q", c.ran, c.steps, got, c.want)
		}
	}
}

// BenchmarkResults200 is the results of a 200-attendee room, as CSV and
// JSON lines.
func BenchmarkResults200(b *testing.B) {
	rows := make([]workshop.Row, 200)
	now := time.Now()
	for i := range rows {
		rows[i] = workshop.Row{N: i + 1, Addr: netip.MustParseAddrPort("10.0.0.1:4000"), Backend: "sim", Phase: workshop.PhaseFinished,
			Observed: text.Same("finished: everything freed"), Ran: 11, Steps: 11, Arrived: now.Add(-time.Minute), Left: now, Last: now}
	}
	for b.Loop() {
		res := workshop.Results(rows, steps.TourWrite, now)
		var c, j bytes.Buffer
		workshop.WriteCSV(&c, res)
		workshop.WriteJSONLines(&j, res)
	}
}
