package steps

import (
	"testing"

	"github.com/rdmatour/rdmatour/steps/privdata"
	"github.com/rdmatour/rdmatour/verbs"
)

// What the server saw of an attendee answers their question: the NAK it
// sent gives their completion's status; a landed message with no NAK is
// a success; nothing seen is not judged.
func TestAnswerSeenFromTheServersSide(t *testing.T) {
	l, err := LessonByName("bad-rkey")
	if err != nil {
		t.Fatal(err)
	}
	_, choices := l.AttendeeQuestion()
	index := func(label string) int {
		for i, c := range choices {
			if c.EN == label {
				return i
			}
		}
		t.Fatalf("no choice %q in %v", label, choices)
		return -1
	}
	landed := &Result{Message: privdata.PeerBytes("hi")}
	for _, c := range []struct {
		name string
		p    Progress
		want int
	}{
		{"remote access NAK", Progress{RefusalStatus: verbs.WCRemAccessErr}, index("IBV_WC_REM_ACCESS_ERR (remote access error)")},
		{"landed, no NAK", Progress{Result: landed}, index("IBV_WC_SUCCESS (success)")},
		{"nothing seen", Progress{}, -1},
	} {
		if got := l.AnswerSeen(c.p); got != c.want {
			t.Errorf("%s: answer %d, want %d (choices %v)", c.name, got, c.want, choices)
		}
	}
}
