package workshop_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/verbs"
	"github.com/rdmatour/rdmatour/verbs/sim"
	"github.com/rdmatour/rdmatour/workshop"
)

// openLessonRoom is a write room on the simulated NIC running lesson.
func openLessonRoom(t testing.TB, lesson string) (*workshop.Room, netip.AddrPort) {
	t.Helper()
	l, err := steps.ParseLesson(lesson)
	if err != nil {
		t.Fatal(err)
	}
	r, err := workshop.Open(workshop.Config{Providers: []verbs.Provider{sim.New(sim.Options{})},
		Bind: netip.MustParseAddrPort("127.0.0.1:0"), Lesson: l, Tour: l.Tour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, r.ListenAddr(0)
}

// voter runs a client of lesson (nil: the plain tour) called name that
// answers pick (1-based, 0: none) to the end, and returns its error.
func voter(addr netip.AddrPort, lesson *steps.Lesson, name string, pick int) error {
	return voterFollowing(addr, lesson, name, pick, false)
}

// voterFollowing is voter whose hello says whether it follows rooms.
func voterFollowing(addr netip.AddrPort, lesson *steps.Lesson, name string, pick int, follows bool) error {
	s, err := steps.NewSession(steps.Config{Role: steps.Client, Provider: sim.New(crowdNIC()), Server: addr,
		Lesson: lesson, Name: name, FollowsRoom: follows, Timeout: 20 * time.Second})
	if err != nil {
		return err
	}
	defer s.Close()
	if pick > 0 {
		if err := s.Predict(pick - 1); err != nil {
			return err
		}
	}
	for {
		if _, err := s.RunNext(context.Background()); errors.Is(err, steps.ErrTourOver) {
			return nil
		} else if err != nil {
			if _, failed := s.Done(); failed {
				return err
			}
		}
		if done, _ := s.Done(); done {
			return nil
		}
	}
}

// A plain client in a lesson room is turned away with the room's plan
// (so it can follow), one with the room's lesson is served, and the
// seed (no hello) is served too.
func TestLessonRoomHandsOutItsPlan(t *testing.T) {
	r, addr := openLessonRoom(t, "bad-rkey")
	err := voter(addr, nil, "ann", 0)
	var plan *steps.RoomPlanError
	if !errors.As(err, &plan) || plan.Plan.Lesson != "bad-rkey" || plan.Plan.Tour != steps.TourWrite {
		t.Fatalf("a plain client in a bad-rkey room: %v, want a RoomPlanError naming bad-rkey", err)
	}
	if en := steps.ExplainIn(err, text.EN); !strings.Contains(en, "this workshop runs --tour write --lesson bad-rkey; you ran --tour write") {
		t.Errorf("the client is told: %s", en)
	}
	// One that follows rooms is sent the plan, not counted turned away.
	if err := voterFollowing(addr, nil, "cy", 0, true); !errors.As(err, &plan) || r.Counts().TurnedAway != 1 {
		t.Errorf("a follower: %v, %d turned away (want the plan, and only the first counted)", err, r.Counts().TurnedAway)
	}
	if err := voter(addr, plan.Lesson(), "ann", 2); err != nil {
		t.Fatalf("the room's lesson: %v", err)
	}
	waitEmpty(t, r)
	rows := r.Roster()
	if len(rows) != 1 || rows[0].Votes.Name != "ann" || rows[0].Votes.Pick != 2 || rows[0].Votes.Lesson != "bad-rkey" {
		t.Fatalf("roster %+v", rows)
	}
}

// Every lesson's plan fits behind the longest reason in a REJ.
func TestPlanFitsTheReject(t *testing.T) {
	for _, l := range steps.Lessons() {
		if l.BeforeConnection() { // never a room's plan (LessonsOf)
			continue
		}
		reason := fmt.Sprintf("%s%s --lesson %s; you ran --tour atomic --lesson no-remote-atomic", steps.TourMismatchReason, l.Tour, l.Name)
		b, err := steps.HelloFor(l.Tour, l.Name).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		got := privdata.RejectWithPlan(reason, b, verbs.MaxRejectPrivateData)
		if _, rest := privdata.SplitReject(got); len(rest) != len(b) {
			t.Errorf("lesson %s: the plan does not fit behind %d bytes of reason", l.Name, len(reason))
		}
	}
}

// Predictions to the room: the answers are counted, hidden until the
// reveal, shown next to what the server saw of each QP; a revote keeps
// each name's first and second votes side by side; the misconceptions
// count the picks that differed.
func TestRoomVotesRevealRevote(t *testing.T) {
	r, addr := openLessonRoom(t, "bad-rkey")
	l := r.Plan().Lesson
	_, choices := l.AttendeeQuestion()
	success, access := choiceIndex(t, choices, "IBV_WC_SUCCESS"), choiceIndex(t, choices, "IBV_WC_REM_ACCESS_ERR")
	const n = 6
	run := func(pick func(i int) int) {
		errs := make(chan error, n)
		for i := range n {
			go func() { errs <- voter(addr, l, fmt.Sprintf("att-%d", i), pick(i)) }()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		waitEmpty(t, r)
		waitRetired(t, r) // judged: the row's Seen is set as its run is retired
	}
	run(func(i int) int { // two thirds think the WRITE succeeds
		if i%3 == 0 {
			return access + 1
		}
		return success + 1
	})
	tally := r.Tally()
	if tally.Answered1 != n || tally.Revealed || len(tally.Lines(text.EN)) != 2 || !strings.Contains(tally.Lines(text.EN)[1], "6 first votes") {
		t.Fatalf("before the reveal: %+v\n%s", tally, strings.Join(tally.Lines(text.EN), "\n"))
	}
	r.Reveal()
	tally = r.Tally()
	if tally.First[success] != 4 || tally.First[access] != 2 || tally.Seen[access] != n {
		t.Fatalf("revealed: %+v\n%s", tally, strings.Join(tally.Lines(text.EN), "\n"))
	}
	r.Revote()
	run(func(int) int { return access + 1 })
	tally = r.Tally()
	if tally.Round != 2 || tally.Revealed || tally.Answered2 != n {
		t.Fatalf("after the revote: %+v", tally)
	}
	for _, row := range r.Roster() {
		if row.Votes.Second != access+1 || row.Votes.First == 0 || row.Votes.Seen != access {
			t.Errorf("row %d: votes %+v, want a first vote, second %d, seen %d", row.N, row.Votes, access+1, access)
		}
	}
	ms := workshop.Misconceptions(r.Roster())
	if len(ms) != 1 || ms[0].Count != 4 || ms[0].Picked.EN != choices[success].EN || ms[0].Happened.EN != choices[access].EN {
		t.Errorf("misconceptions %+v", ms)
	}
	res := workshop.Results(r.Roster(), steps.TourWrite, time.Now())
	if !strings.HasPrefix(res[0].Name, "att-") || res[0].Happened != choices[access].EN || res[0].Second != choices[access].EN {
		t.Errorf("a result row: %+v", res[0])
	}
}

func choiceIndex(t *testing.T, choices []text.Text, prefix string) int {
	t.Helper()
	for i, c := range choices {
		if strings.HasPrefix(c.EN, prefix) {
			return i
		}
	}
	t.Fatalf("no choice %s in %v", prefix, choices)
	return -1
}

// The instructor's n walks the room's tour's lessons and back to the
// plain tour; a lesson of another tour is refused.
func TestNextLessonWalksTheTour(t *testing.T) {
	r, _ := openTestRoom(t, 5, time.Minute)
	var seen []string
	for range len(workshop.LessonsOf(steps.TourWrite)) + 1 {
		seen = append(seen, r.NextLesson().Lesson.String())
	}
	want := append(workshop.LessonsOf(steps.TourWrite), "")
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("n walks %v, want %v", seen, want)
	}
	l, _ := steps.ParseLesson("no-remote-read")
	if err := r.SetLesson(l); err == nil || !strings.Contains(err.Error(), "bad-rkey") {
		t.Errorf("a read lesson in a write room: %v", err)
	}
}

// A server-side lesson goes wrong for every attendee: the room's side
// registers without remote write, so each WRITE is refused and judged so.
func TestServerSideLessonRoom(t *testing.T) {
	r, addr := openLessonRoom(t, "no-remote-write")
	l := r.Plan().Lesson
	_, choices := l.AttendeeQuestion()
	access := choiceIndex(t, choices, "IBV_WC_REM_ACCESS_ERR")
	for i := range 3 {
		if err := voter(addr, l, fmt.Sprintf("s%d", i), access+1); err != nil {
			t.Fatalf("attendee %d: %v", i, err)
		}
	}
	waitEmpty(t, r)
	for _, row := range r.Roster() {
		if row.Votes.Seen != access || row.Expected.EN == "" {
			t.Errorf("row %d: seen %d expected %q, want the lesson's remote access error", row.N, row.Votes.Seen, row.Expected)
		}
	}
	if ms := workshop.Misconceptions(r.Roster()); len(ms) != 0 {
		t.Errorf("right picks counted as misconceptions: %+v", ms)
	}
}

// waitRetired waits until every row has left the room (retire judged it):
// a row's phase says finished a moment before its run is retired.
func waitRetired(t *testing.T, r *workshop.Room) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := 0
		rows := r.Roster()
		for _, row := range rows {
			if !row.Left.IsZero() {
				left++
			}
		}
		if left == len(rows) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs not retired: %+v", rows)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
