package workshop_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/rdmatour/rdmatour/steps"
	"github.com/rdmatour/rdmatour/text"
	"github.com/rdmatour/rdmatour/workshop"
)

// BenchmarkReveal200 is what r and the end of a 200-attendee lesson room
// compute from the rows: the revealed tally's lines, the misconceptions,
// and the results with both votes as CSV and JSON lines.
func BenchmarkReveal200(b *testing.B) {
	l, err := steps.LessonByName("bad-rkey")
	if err != nil {
		b.Fatal(err)
	}
	_, choices := l.AttendeeQuestion()
	rows := make([]workshop.Row, 200)
	now := time.Now()
	tally := workshop.Tally{Lesson: l.Name, Revealed: true, Round: 2, Choices: choices,
		First: make([]int, len(choices)), Second: make([]int, len(choices)), Seen: make([]int, len(choices))}
	for i := range rows {
		first, second, seen := i%len(choices)+1, len(choices), len(choices)-1
		rows[i] = workshop.Row{N: i + 1, Addr: netip.MustParseAddrPort("10.0.0.1:4000"), Backend: "sim", Phase: workshop.PhaseFinished,
			Ran: 11, Steps: 11, Arrived: now.Add(-time.Minute), Left: now, Last: now, Lesson: l.Name,
			Votes: workshop.Votes{Name: fmt.Sprintf("att-%d", i), Lesson: l.Name, Pick: first, First: first, Second: second, Seen: seen}}
		tally.First[first-1]++
		tally.Second[second-1]++
		tally.Seen[seen]++
		tally.Answered1++
		tally.Answered2++
	}
	for b.Loop() {
		if len(tally.Lines(text.EN)) == 0 || len(workshop.Misconceptions(rows)) == 0 {
			b.Fatal("nothing revealed")
		}
		res := workshop.Results(rows, steps.TourWrite, now)
		var c, j bytes.Buffer
		workshop.WriteCSV(&c, res)
		workshop.WriteJSONLines(&j, res)
	}
}
